import { expect } from 'chai';
import { clippedParts } from '../../../src/channels/clip.js';
import { renderBodyTemplate, renderTemplate, templateProblems } from '../../../src/channels/templates.js';
import { localTimeText, sampleViews, templateView } from '../../../src/channels/templateView.js';

const HTML = {
  escape: (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'),
  open: '<b>',
  close: '</b>',
  atom: /&(?:amp|lt|gt|quot);|<[^<>]*>/,
  closesTags: true,
};

const context = { policy: null, event: null, consoleUrl: '', shareUrl: '', ackUrl: '' };

describe('message templates', () => {
  it('accepts every known variable, sections over the alert, and comments', () => {
    expect(
      templateProblems({ title_template: '{{! note }}{{#alert}}{{title}} {{severity}}{{/alert}} {{^ack_url}}no link{{/ack_url}} {{alert.title}}' }, 'slack'),
    ).to.deep.equal([]);
  });

  it("names an alert's labels, whatever they are called, and lists them", () => {
    const template = '{{labels.agent}} {{labels.code}} {{#labels}}{{route}}{{/labels}} {{alert.labels.code}} {{#label_list}}{{name}}={{value}};{{/label_list}}';
    expect(templateProblems({ message_template: template }, 'slack')).to.deep.equal([]);
    const view = templateView({ labels: { agent: 'web-1', code: '500', route: '/checkout' } }, context);
    expect(renderTemplate(template, view, String)).to.equal('web-1 500 /checkout 500 agent=web-1;code=500;route=/checkout;');
    // A label the alert lacks renders as nothing.
    expect(renderTemplate('[{{labels.region}}]', view, String)).to.equal('[]');
  });

  it('names the field of each problem', () => {
    const problems = templateProblems({ title_template: '{{nope}}', message_template: '{{#value}}', body_template: '{}' }, 'discord');
    expect(problems.map((p) => p.path)).to.deep.equal(['/title_template', '/message_template', '/body_template']);
  });

  it('escapes values with the channel’s escape and leaves the template’s own text as written', () => {
    const view = templateView({ title: '<i>&"x"' }, context);
    expect(renderTemplate('<u>{{alert.title}}</u>', view, (v) => HTML.escape(String(v)))).to.equal('<u>&lt;i&gt;&amp;&quot;x&quot;</u>');
  });

  it('renders a body as JSON whatever the values hold, null as null', () => {
    const view = templateView({ title: 'a "quoted"\n\\ \u2028 title', value: null, threshold: 5 }, context);
    const body = renderBodyTemplate('{"t": "{{alert.title}}", "v": {{value}}, "th": {{threshold}}}', view);
    expect(body).to.deep.equal({ t: 'a "quoted"\n\\ \u2028 title', v: null, th: 5 });
    for (const sample of sampleViews()) expect(renderBodyTemplate('{"t": "{{alert.title}}", "p": {{alert.peak_value}}}', sample)).not.to.be.instanceOf(Error);
  });

  it('writes the trigger time on the event’s wall clock, DST included', () => {
    expect(localTimeText('2026-03-29T01:30:00.000Z', 'Europe/Paris')).to.equal('2026-03-29 03:30:00 +02:00 (Europe/Paris)');
    expect(localTimeText('2026-01-15T12:00:00.000Z', 'Asia/Kolkata')).to.equal('2026-01-15 17:30:00 +05:30 (Asia/Kolkata)');
    expect(localTimeText(null, 'UTC')).to.equal('');
  });

  it('closes the tags a cut leaves open, within the limit, never cutting inside a tag or entity', () => {
    const body = `<i>${'&lt;x&gt; '.repeat(100)}</i><a href="https://x">link</a>`;
    const message = clippedParts('Head', body, 120, HTML);
    expect(message.length).to.be.at.most(120);
    expect(message).to.match(/^<b>Head<\/b>\n<i>(&lt;x&gt; )*(&lt;x&gt;)?…<\/i>$/);
  });
});
