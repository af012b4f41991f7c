import { expect } from 'chai';
import { bodyFrom, draftFrom, humanize, initialDraft, NULL_OPTION, unplacedErrors } from '../../../web/console/drafts.js';
import type { JsonSchema } from '../../../web/console/openapi.js';

// A policy-like and a destination-like schema, as the OpenAPI document gives them.
const policy: JsonSchema = {
  type: 'object',
  required: ['title', 'threshold', 'period'],
  properties: {
    title: { type: 'string', pattern: '\\S' },
    description: { type: 'string', maxLength: 2000, default: '' },
    period: { type: 'string', enum: ['minute', 'hour', 'day'] },
    threshold: { type: 'number' },
    enabled: { type: 'boolean', default: true },
    pending_buckets: { type: 'integer', minimum: 1 },
    recovery_threshold: { type: ['number', 'null'] },
    compare_to: { type: ['string', 'null'], enum: ['previous_bucket', 'previous_1d', null] },
    policy_id: {},
  },
};

const destination: JsonSchema = {
  type: 'object',
  required: ['channel'],
  properties: {
    channel: { type: 'string', enum: ['webhook', 'telegram'] },
    url: { type: ['string', 'null'] },
    credentials: {
      type: ['object', 'null'],
      properties: { bot_token: { type: 'string' }, chat_id: { type: ['string', 'integer'] }, authorization: { type: 'string' } },
    },
    policy_ids: { type: 'array', items: { type: 'string', format: 'uuid' } },
  },
};

const recurring: JsonSchema = {
  type: 'object',
  properties: {
    ends_at: { type: 'string', format: 'date-time' },
    recurrence: {
      type: ['object', 'null'],
      required: ['days', 'start'],
      properties: { days: { type: 'array', items: { type: 'string', enum: ['mon', 'tue'] } }, start: { type: 'string' } },
    },
  },
};

describe('console form drafts', () => {
  it('starts a new resource at the documented defaults, booleans otherwise false, read-only fields left out', () => {
    expect(initialDraft(policy)).to.deep.equal({
      '/title': '',
      '/description': '',
      '/period': '',
      '/threshold': '',
      '/enabled': true,
      '/pending_buckets': '',
      '/recovery_threshold': '',
      '/compare_to': '',
    });
  });

  it('creates with what was filled in: numbers parsed, empty optional fields left to the server', () => {
    const draft = { ...initialDraft(policy), '/title': 'Slow', '/period': 'minute', '/threshold': ' 1.5e3 ', '/compare_to': NULL_OPTION };
    expect(bodyFrom(policy, draft, 'create')).to.deep.equal({ title: 'Slow', period: 'minute', threshold: 1500, enabled: true, compare_to: null });
  });

  it('sends what is not a number as typed, so the API names the field', () => {
    const draft = { ...initialDraft(policy), '/threshold': 'ten', '/pending_buckets': '2' };
    expect(bodyFrom(policy, draft, 'create')).to.include({ threshold: 'ten', pending_buckets: 2 });
  });

  it('edits: an emptied nullable field is null, an emptied free text is "", a required one is not sent', () => {
    const read = {
      policy_id: 'p1',
      title: 'Slow',
      description: 'x',
      period: 'hour',
      threshold: 5,
      enabled: false,
      pending_buckets: 3,
      recovery_threshold: 4,
      compare_to: 'previous_1d',
    };
    const draft = draftFrom(policy, read);
    expect(draft['/threshold']).to.equal('5');
    expect(draft['/enabled']).to.equal(false);
    // Sent back unchanged, the body is what was read (less the read-only id).
    const { policy_id: _id, ...writable } = read;
    expect(bodyFrom(policy, draft, 'edit')).to.deep.equal(writable);
    const emptied = { ...draft, '/title': '', '/description': '', '/recovery_threshold': '', '/compare_to': NULL_OPTION, '/pending_buckets': '' };
    expect(bodyFrom(policy, emptied, 'edit')).to.deep.equal({
      description: '',
      period: 'hour',
      threshold: 5,
      enabled: false,
      recovery_threshold: null,
      compare_to: null,
    });
  });

  it('sends only the fields shown (a channel hides the others) and nested ones by their pointer', () => {
    const draft = {
      ...initialDraft(destination),
      '/channel': 'telegram',
      '/url': 'https://x',
      '/credentials/bot_token': '123:abc',
      '/credentials/chat_id': '42',
    };
    const telegram = (path: string) => !['/url', '/credentials/authorization', '/policy_ids'].includes(path);
    expect(bodyFrom(destination, draft, 'create', telegram)).to.deep.equal({ channel: 'telegram', credentials: { bot_token: '123:abc', chat_id: '42' } });
    // An object with nothing filled in is not sent at all.
    expect(bodyFrom(destination, { '/channel': 'webhook' }, 'create')).to.deep.equal({ channel: 'webhook' });
    expect(bodyFrom(destination, { '/channel': 'webhook', '/policy_ids': ['a', 'b'] }, 'create')).to.deep.equal({ channel: 'webhook', policy_ids: ['a', 'b'] });
  });

  it('sends a nullable object with required fields only when switched on; off is null on edit', () => {
    const on = { '/ends_at': '2026-11-21T14:04', '/recurrence': true, '/recurrence/days': ['mon'], '/recurrence/start': '09:00' };
    const body = bodyFrom(recurring, on, 'create');
    expect(body.recurrence).to.deep.equal({ days: ['mon'], start: '09:00' });
    expect(body.ends_at).to.equal(new Date('2026-11-21T14:04').toISOString());
    expect(bodyFrom(recurring, { ...on, '/recurrence': false }, 'create')).to.not.have.property('recurrence');
    expect(bodyFrom(recurring, { ...on, '/recurrence': false }, 'edit')).to.have.property('recurrence', null);
    expect(draftFrom(recurring, { recurrence: null })['/recurrence']).to.equal(false);
  });

  it('lists the errors no shown field can hold', () => {
    const errors = [
      { path: '/title', message: 'must not be blank' },
      { path: '/credentials/bot_token', message: 'is required' },
      { path: '', message: 'bad' },
    ];
    expect(unplacedErrors(policy, errors)).to.deep.equal([errors[1], errors[2]]);
    expect(unplacedErrors(destination, errors, (p) => p !== '/credentials')).to.deep.equal([errors[0], errors[1], errors[2]]);
  });

  it('names fields for people', () => {
    expect(humanize('pending_buckets')).to.equal('Pending buckets');
    expect(humanize('policy_ids')).to.equal('Policy IDs');
    expect(humanize('url')).to.equal('URL');
  });
});
