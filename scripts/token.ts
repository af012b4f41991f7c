// npm run token -- --user alice [--email alice@example.com]
// Issues a workspace token: through the admin API when the service runs, else on the stores.
import { parseArgs } from 'node:util';
import { issueToken } from '../src/auth/tokens.js';
import { AppError } from '../src/errors.js';
import { issueTokenSchema, type IssueTokenBody } from '../src/http/admin/schemas.js';
import { bodyValidator } from '../src/http/validation.js';
import { configOrExit, fail, postToAdminApi, withStores } from './lib/adminOrStores.js';

const usage = 'usage: npm run token -- --user <user_id> [--email <owner email>]';
let values: { user?: string; email?: string } = {};
try {
  ({ values } = parseArgs({ options: { user: { type: 'string' }, email: { type: 'string' } } }));
} catch (err) {
  fail(`${(err as Error).message}\n${usage}`);
}
if (!values.user) fail(usage);

const config = configOrExit();
const body: IssueTokenBody = { user_id: values.user, ...(values.email ? { email: values.email } : {}) };
let issued = await postToAdminApi<{ token: string; user_id: string }>(config, '/tokens', body);
if (issued === null) {
  // No service answers: the same rules as the admin API, then straight to Postgres.
  try {
    bodyValidator<IssueTokenBody>(issueTokenSchema)(body);
  } catch (err) {
    if (err instanceof AppError) fail(err.details.map((d) => `${d.path}: ${d.message}`).join('\n'));
    throw err;
  }
  const { token, workspaceId } = await withStores(config, (stores) => stores.postgres.transaction((tx) => issueToken(tx, body.user_id, body.email)));
  issued = { token, user_id: workspaceId };
}
process.stdout.write(`${JSON.stringify(issued)}\n`);
