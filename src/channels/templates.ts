// Message templates of a destination (docs/api.md, Message templates): Mustache, logic-less,
// through the `mustache` package (mustache.js: spec-compliant, no dependencies, stable API).
// mustache.js renders an unknown name as nothing; a template is instead checked once, when it
// is written, against the variables a notification has (templateView.ts), so a typo is a 400
// and never a silently empty message. Values are escaped for the channel by the escape
// function each render is given; unescaped output ({{{…}}}, {{&…}}) and partials are refused,
// so no value can inject the channel's markup or a webhook body's JSON.
import Mustache from 'mustache';
import type { ErrorDetail } from '../errors.js';
import { OPEN_GROUPS, objectVariables, sampleViews, type TemplateView, variableNames } from './templateView.js';

export const TEMPLATE_FIELDS = ['title_template', 'message_template', 'body_template'] as const;
export type TemplateField = (typeof TEMPLATE_FIELDS)[number];

/** A destination's templates; null where it uses the built-in text. */
export type DestinationTemplates = { readonly [F in TemplateField]: string | null };

export const NO_TEMPLATES: DestinationTemplates = { title_template: null, message_template: null, body_template: null };

export const MAX_TEMPLATE_LENGTH = 4000;

/** Escapes one value for where the rendered text goes. */
export type ValueEscape = (value: unknown) => string;

/** No escaping: plain text (email text part and subject, the title and message fields of a webhook body). */
export const plainText: ValueEscape = (value) => String(value);

/** Inside a JSON string: the characters JSON needs escaped, without the quotes. */
const jsonString: ValueEscape = (value) =>
  typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(String(value)).slice(1, -1);

type Token = [string, string, number, number, Token[]?, ...unknown[]];
type Context = { lookup(name: string): unknown };

// Own writers without a template cache: templates are as many as destinations, and parsing 4,000 characters is cheap.
function writer(nullText: string | null): InstanceType<typeof Mustache.Writer> {
  const w = new Mustache.Writer();
  (w as unknown as { templateCache: undefined }).templateCache = undefined;
  if (nullText !== null) {
    // In a JSON body an empty value would break the JSON: a null value renders as null.
    const escaped = w as unknown as { escapedValue(token: Token, context: Context, config: { escape: ValueEscape }): string };
    escaped.escapedValue = (token, context, config) => {
      const value = context.lookup(token[1]);
      return value === null || value === undefined ? nullText : config.escape(value);
    };
  }
  return w;
}

const textWriter = writer(null);
const jsonWriter = writer('null');

/** The template rendered with the view, each value escaped by `escapeValue`. */
export function renderTemplate(template: string, view: TemplateView, escapeValue: ValueEscape): string {
  return textWriter.render(template, view, {}, { escape: escapeValue });
}

/** A webhook body template rendered (values escaped as JSON string contents, null as null) and parsed; an Error when it is no JSON object. */
export function renderBodyTemplate(template: string, view: TemplateView): Record<string, unknown> | Error {
  const text = jsonWriter.render(template, view, {}, { escape: jsonString });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return new Error(`is not valid JSON once rendered (${(err as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return new Error('must render to a JSON object ({…})');
  return parsed as Record<string, unknown>;
}

/** Every problem of one template's tags: partials, unescaped output, unknown names. */
function tagProblems(tokens: readonly Token[], scopes: readonly string[], problems: string[]): void {
  const known = variableNames();
  const objects = objectVariables();
  /** The full name `name` means inside the sections `scopes` (innermost first), or null when unknown. */
  const resolve = (name: string): string | null => {
    for (const scope of scopes) {
      const full = scope === '' ? name : `${scope}.${name}`;
      if (known.has(full) || objects.has(full)) return full;
      if (OPEN_GROUPS.some((group) => full.startsWith(`${group}.`))) return full;
    }
    return null;
  };
  for (const token of tokens) {
    const [type, name] = token;
    if (type === 'text' || type === '!' || type === '=') continue;
    if (type === '>') {
      problems.push(`uses a partial ({{> ${name}}}); templates have no partials`);
      continue;
    }
    if (type === '&' || type === '{') {
      problems.push(`writes ${name} unescaped ({{{…}}} or {{&…}}); use {{${name}}}: values are escaped for the channel`);
      continue;
    }
    if (name === '.') continue;
    const full = resolve(name);
    if (full === null) {
      problems.push(`names an unknown variable "${name}"; the variables are listed in docs/api.md (Message templates)`);
      continue;
    }
    if (type === 'name' && objects.has(full)) {
      problems.push(
        `writes "${name}", which is a group of variables; name one of them (e.g. ${full}.${[...known].find((k) => k.startsWith(`${full}.`))?.slice(full.length + 1)})`,
      );
      continue;
    }
    if ((type === '#' || type === '^') && token[4]) tagProblems(token[4], objects.has(full) ? [full, ...scopes] : scopes, problems);
  }
}

function parse(template: string): Token[] | Error {
  try {
    return Mustache.parse(template) as unknown as Token[];
  } catch (err) {
    return new Error((err as Error).message);
  }
}

/**
 * Every problem of a destination's templates, each naming its field: a template that does not
 * parse, names an unknown variable, or (body_template) does not render a JSON object for the
 * sample alerts; body_template only on webhook destinations.
 */
export function templateProblems(templates: Partial<DestinationTemplates>, channel: string): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  for (const field of TEMPLATE_FIELDS) {
    const template = templates[field];
    if (template === null || template === undefined) continue;
    const path = `/${field}`;
    if (field === 'body_template' && channel !== 'webhook') {
      problems.push({ path, message: 'is only for webhook destinations (other channels send text: use title_template and message_template)' });
      continue;
    }
    if (template.length > MAX_TEMPLATE_LENGTH) {
      problems.push({ path, message: `must be at most ${MAX_TEMPLATE_LENGTH} characters` });
      continue;
    }
    const tokens = parse(template);
    if (tokens instanceof Error) {
      problems.push({ path, message: `is not a valid Mustache template: ${tokens.message}` });
      continue;
    }
    const found: string[] = [];
    tagProblems(tokens, [''], found);
    if (found.length > 0) {
      problems.push(...[...new Set(found)].map((message) => ({ path, message })));
      continue;
    }
    if (field === 'body_template') {
      for (const view of sampleViews()) {
        const body = renderBodyTemplate(template, view);
        if (body instanceof Error) {
          problems.push({ path, message: `${body.message} for a sample alert; put text variables inside quotes ("{{alert.title}}")` });
          break;
        }
      }
    }
  }
  return problems;
}
