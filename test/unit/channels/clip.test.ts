import { expect } from 'chai';
import { clippedMessage, clipText } from '../../../src/channels/clip.js';

const HTML = {
  escape: (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'),
  open: '<b>',
  close: '</b>',
  atom: /&(?:amp|lt|gt);/,
};

describe('clip', () => {
  it('keeps text that fits as it is', () => {
    expect(clipText('short', 5)).to.equal('short');
    expect(clippedMessage(['Title & co', 'line'], 100, HTML)).to.equal('<b>Title &amp; co</b>\nline');
  });

  it('cuts between whole emoji, never through a surrogate pair or a joined sequence', () => {
    const family = '👩‍👩‍👧‍👦'; // 11 UTF-16 units
    expect(clipText(`ab${family}cd`, 12)).to.equal('ab…');
    expect(clipText(`ab${family}cd`, 14)).to.equal(`ab${family}…`);
    expect(clipText('a😀😀', 4)).to.equal('a😀…');
    expect(clipText('a😀😀', 3)).to.equal('a…');
  });

  it('never cuts inside an entity, and keeps the headline’s markup closed', () => {
    expect(clipText('a&amp;b', 4, HTML.atom)).to.equal('a…');
    expect(clipText('a&amp;bc', 7, HTML.atom)).to.equal('a&amp;…');
    const message = clippedMessage([`${'<&>'.repeat(100)}`, 'the facts'], 80, HTML);
    expect(message.length).to.be.at.most(80);
    expect(message).to.match(/^<b>(&lt;|&amp;|&gt;)+…<\/b>\nthe facts$/);
  });
});
