// A worker thread of batchParsers.ts: parses a log batch's body text as the JSON body parser
// would (prototype poisoning refused), validates it, and replies with its records prepared for
// the journal, or why not. It maps OTLP and remote-write requests too (pointRequest.ts),
// and keeps the cumulative series of the workspaces whose requests come to it.
import { parentPort } from 'node:worker_threads';
import bourne from '@hapi/bourne';
import { AppError } from '../../errors.js';
import { decodeJsonText } from '../../validation/jsonText.js';
import { prepareBatch, transferablesOf } from '../journaledBatch.js';
import { PointRequests, MAX_CUMULATIVE_SERIES, type PointJob } from './pointRequest.js';
import { PARSER_THREADS, type ParseJob, type ParseReply, type SettlePoints } from './batchParsers.js';
import { validateLogBatch } from './validateLogBatch.js';

function parse({ id, body: bytes, workspaceId, receivedAt, maxRecords }: ParseJob): ParseReply {
  let body: unknown;
  try {
    // No body reads as {}, an empty one as '' (what the validation then refuses).
    const text = bytes === null ? null : decodeJsonText(bytes);
    body = text === null ? {} : text === '' ? '' : bourne.parse(text, { protoAction: 'error' });
  } catch {
    return { id, invalidJson: true };
  }
  try {
    return { id, batch: prepareBatch(workspaceId, receivedAt, validateLogBatch(body, receivedAt, maxRecords)) };
  } catch (err) {
    if (!(err instanceof AppError)) return { id, unexpected: err instanceof Error ? (err.stack ?? err.message) : String(err) };
    const { kind, code, message, details, options } = err;
    return { id, refused: { kind, code, message, details, options }, recordCount: Array.isArray(body) ? body.length : 0 };
  }
}

const points = new PointRequests(Math.ceil(MAX_CUMULATIVE_SERIES / PARSER_THREADS));

parentPort!.on('message', (job: ParseJob | PointJob | SettlePoints) => {
  if ('settle' in job) {
    points.settle(job.settle, job.journaled);
    return;
  }
  const reply = 'kind' in job ? points.map(job) : parse(job);
  parentPort!.postMessage(reply, 'batch' in reply && reply.batch !== null ? transferablesOf(reply.batch) : []);
});
