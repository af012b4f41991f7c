import { expect } from 'chai';
import { redactKnownSecrets, secretForms, secretList, userinfoSecrets } from '../../src/redaction.js';

// An echoing receiver may show a credential as written, URL-encoded, or as the base64 of a
// Basic header: each form is redacted, padding or no padding.
describe('redaction of credentials in their encodings', () => {
  const basic = (pair: string) => Buffer.from(pair).toString('base64');

  it('finds a URL userinfo as written, decoded, as user:password and as its Basic base64', () => {
    const secrets = secretList(userinfoSecrets('https://bot:p%40ss%2Fw0rd!@hooks.example.com/in'));
    const text = [
      'p%40ss%2Fw0rd!',
      'p@ss/w0rd!',
      'bot:p@ss/w0rd!',
      `Authorization: Basic ${basic('bot:p@ss/w0rd!')}`,
      `auth=Basic%20${encodeURIComponent(basic('bot:p@ss/w0rd!'))}`,
    ].join(' | ');
    const redacted = redactKnownSecrets(text, secrets);
    for (const leaked of ['w0rd', basic('bot:p@ss/w0rd!').replace(/=+$/, '').slice(8)]) expect(redacted).not.to.include(leaked);
    // A user name beside a password is a name; alone it is the token.
    expect(redacted).to.include('bot');
    expect(userinfoSecrets('https://tok_abcdefgh@hooks.example.com/')).to.include('tok_abcdefgh');
    expect(userinfoSecrets('https://hooks.example.com/')).to.deep.equal([]);
    expect(userinfoSecrets('not a url')).to.deep.equal([]);
  });

  it('finds a Basic authorization value by its base64 and its decoded password', () => {
    const value = `Basic ${basic('alice:correct horse')}`;
    const forms = secretForms(value);
    expect(forms).to.include.members([value, basic('alice:correct horse').replace(/=+$/, ''), 'alice:correct horse', 'correct horse']);
    // Any other value: itself and URL-encoded.
    expect(secretForms('Bearer abc def')).to.deep.equal(['Bearer abc def', 'Bearer%20abc%20def']);
  });
});
