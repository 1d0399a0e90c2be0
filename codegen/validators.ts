import Ajv from 'ajv';
import standaloneCode from 'ajv/dist/standalone';
import { GENERATED_NOTICE, type JsonSchema } from './json-schema';

export interface NamedJsonSchema {
  readonly name: string;
  readonly jsonSchema: JsonSchema;
}

/** Options shared by the generator and by tests that compile the same schemas. */
export const AJV_OPTIONS = {
  allErrors: false,
  allowUnionTypes: true,
  discriminator: true,
  strict: true,
} as const;

/**
 * What the generated code leaves out, to keep the client bundle small: message
 * strings (src/protocol/validation-message.ts words them from keyword and
 * params), schema paths (errors say where by instancePath), and the descriptive
 * keywords of the schema objects ajv embeds (the JSON Schema files keep them).
 * The emitted code is then made smaller without changing what it answers (see
 * emitValidatorModule; codegen/validators.test.ts holds it to ajv at run time).
 */
const EMIT_OPTIONS = { messages: false } as const;
const DESCRIPTIVE_KEYWORDS = new Set(['title', 'description', '$comment']);
/** Keywords whose value maps names to schemas (not schema keywords themselves). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependencies']);
/** Keywords whose value is data, not a schema. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'required']);

/** A copy of a schema without title, description and $comment at any schema position. */
export function withoutDescriptiveKeywords(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutDescriptiveKeywords);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DESCRIPTIVE_KEYWORDS.has(key)) continue;
    if (DATA_KEYWORDS.has(key)) out[key] = value;
    else if (SCHEMA_MAPS.has(key) && value !== null && typeof value === 'object') {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, withoutDescriptiveKeywords(sub)]));
    } else out[key] = withoutDescriptiveKeywords(value);
  }
  return out;
}

/** ajv calls `unicode` deprecated (it is still honoured); everything else it logs goes to the console. */
const UNICODE_QUIET_LOGGER = {
  log: console.log,
  warn: (...args: unknown[]) => {
    if (!(typeof args[0] === 'string' && args[0].startsWith('DEPRECATED: option unicode.'))) console.warn(...args);
  },
  error: console.error,
};

export function validatorName(name: string): string {
  return `validate${name}`;
}

/**
 * Precompiled standalone validators as one ES module: no schema compilation
 * and no `new Function` at run time.
 */
export function emitValidatorModule(schemas: readonly NamedJsonSchema[]): string {
  const unicode = !schemas.every(({ jsonSchema }) => lengthBoundsAreAtMostOne(jsonSchema));
  const ajv = new Ajv({ ...AJV_OPTIONS, ...EMIT_OPTIONS, unicode, logger: UNICODE_QUIET_LOGGER, code: { source: true, esm: true, lines: true } });
  const exportsMap: Record<string, string> = {};
  for (const { name, jsonSchema } of schemas) {
    ajv.addSchema(withoutDescriptiveKeywords(jsonSchema) as JsonSchema);
    exportsMap[validatorName(name)] = jsonSchema.$id as string;
  }
  // Each pass rewrites ajv's text (or the text of the passes before it), in this order.
  const passes = [
    inlineRuntime,
    withoutSchemaPaths,
    withSchemaValuesInline,
    withSharedFail,
    withUnusedArgumentsLeftOut,
    withPurePatterns,
    withoutDiscriminatorTagChecks,
    withoutRequiredPresenceTests,
    withoutDeadChecks,
    withSharedPointerEscape,
    withIntegerTests,
  ];
  const code = passes.reduce((text, pass) => pass(text), standaloneCode(ajv, exportsMap));
  if (/\brequire\(/.test(code)) {
    throw new Error('Generated validators need a runtime require() that codegen cannot inline; adjust the schema.');
  }
  return `// ${GENERATED_NOTICE}\n/* eslint-disable */\n${code.trim()}\n`;
}

/**
 * Whether every string length bound in the schema is `minLength` 0 or 1 (and
 * there is no `maxLength`): a string has at least one code point exactly when
 * it has at least one UTF-16 unit, so such bounds need not count code points
 * (ajv's `unicode: false` compares `.length`, with no helper to carry).
 */
export function lengthBoundsAreAtMostOne(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(lengthBoundsAreAtMostOne);
  if (schema === null || typeof schema !== 'object') return true;
  return Object.entries(schema).every(([key, value]) => {
    if (key === 'maxLength') return false;
    if (key === 'minLength') return value === 0 || value === 1;
    return lengthBoundsAreAtMostOne(value);
  });
}

/** ajv's string length in code points, written inline so the module has no imports. */
const UCS2_LENGTH_SOURCE = `function (str) {
  let length = str.length;
  for (let i = 0; i < str.length; i++) {
    const code = str.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < str.length) {
      const next = str.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length--;
        i++;
      }
    }
  }
  return length;
}`;

/** ajv writes each error's schemaPath as a string literal; nothing reads it, so it is left out. */
function withoutSchemaPaths(code: string): string {
  const stripped = code.replace(/schemaPath:"(?:[^"\\]|\\.)*",/g, '');
  if (stripped.includes('schemaPath')) throw new Error('Generated validators write a schemaPath codegen cannot leave out.');
  return stripped;
}

/**
 * ajv reads some error params (a `type` list, an `enum`) from the schema object
 * it embeds whole, e.g. `schema16.items[1].properties.baseCookie.type`; each
 * such read is written as the JSON value it reads, and the schema objects
 * nothing reads any more are left out.
 */
function withSchemaValuesInline(code: string): string {
  const schemas = new Map<string, unknown>();
  for (const match of code.matchAll(/^const (schema\d+) = (.*);$/gm)) schemas.set(match[1]!, JSON.parse(match[2]!));
  const inlined = code.replace(/\b(schema\d+)((?:\.[A-Za-z_$][\w$]*|\[\d+\])+)/g, (read, name: string, path: string) => {
    if (!schemas.has(name)) throw new Error(`Generated validators read ${read}, which codegen cannot find.`);
    let value = schemas.get(name);
    for (const [, key, index] of path.matchAll(/\.([A-Za-z_$][\w$]*)|\[(\d+)\]/g)) value = (value as Record<string, unknown>)[key ?? index!];
    if (value === undefined) throw new Error(`Generated validators read ${read}, which is not in the schema.`);
    return JSON.stringify(value);
  });
  const stripped = inlined.replace(/^const schema\d+ = .*;\n/gm, '');
  if (/\bschema\d+\b/.test(stripped)) throw new Error('Generated validators use a schema object in a way codegen cannot inline.');
  return stripped;
}

/** The one function every generated `validateN.errors = [error]; return false;` becomes a call of. */
const FAIL_SOURCE = `function fail(validate, instancePath, keyword, params) {
  validate.errors = [{instancePath, keyword, params}];
  return false;
}`;

/**
 * With allErrors off, ajv fails at the first error with the same two
 * statements each time, written out at ~300 places; each becomes a call of one
 * shared function that sets the same error (same properties, same order) and
 * returns false.
 */
function withSharedFail(code: string): string {
  const shared = code.replace(
    /^(validate\d+)\.errors = \[\{instancePath(?::(.*?))?,keyword:("\w+"),params:(.*)\}\];\nreturn false;$/gm,
    (_, validate: string, path: string | undefined, keyword: string, params: string) => `return fail(${validate}, ${path ?? 'instancePath'}, ${keyword}, ${params});`,
  );
  if (/^validate\d+\.errors = \[\{/m.test(shared)) throw new Error('Generated validators set an error in a way codegen cannot share.');
  if (/\bfail\b/.test(code)) throw new Error('Generated validators already use the name fail.');
  return shared.replace(/^("use strict";\n)?/, (useStrict) => `${useStrict}${FAIL_SOURCE}\n`);
}

const SIGNATURE = '(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){';

/**
 * Every validator takes `{instancePath, parentData, parentDataProperty,
 * rootData}`; only one that calls another (a `$ref`) passes the last three on.
 * A validator whose body never names one of them is written without it.
 */
function withUnusedArgumentsLeftOut(code: string): string {
  const parts = code.split(/(?=^function validate\d+\()/m);
  return parts
    .map((part) => {
      if (!part.startsWith('function validate')) return part;
      const at = part.indexOf(SIGNATURE);
      if (at < 0) throw new Error('A generated validator has a signature codegen does not know.');
      const body = part.slice(at + SIGNATURE.length);
      const kept = ['parentData', 'parentDataProperty', 'rootData=data'].filter((name) => new RegExp(`\\b${name.replace('=data', '')}\\b`).test(body));
      return `${part.slice(0, at)}(data, {${['instancePath=""', ...kept].join(', ')}}={}){${withConstantCounts(body)}`;
    })
    .join('');
}

/**
 * ajv compiles each `pattern` once, at the top of the module; marked pure, a
 * bundler leaves out those of the validators an app does not import (a
 * `new RegExp` is otherwise kept for its possible side effects).
 */
function withPurePatterns(code: string): string {
  const marked = code.replace(/^const (pattern\d+) = new RegExp\(/gm, 'const $1 = /* @__PURE__ */ new RegExp(');
  if (/^(?!const pattern\d+ = \/\* @__PURE__ \*\/ )[^\n]*\bnew RegExp\(/m.test(marked)) throw new Error('Generated validators compile a pattern in a way codegen does not know.');
  return marked;
}

/**
 * ajv counts errors in `let errors = 0` and collects them in `let vErrors =
 * null`; a validator that fails at its first error (no anyOf) never changes
 * them, and declared const (with the marks taken of `errors` written as
 * `errors`) a minifier folds the checks on them away (`errors === _errs3` is
 * always true there); so are the valid flags then (withoutConstantValidFlags).
 */
function withConstantCounts(body: string): string {
  let out = body;
  if (!/(?<![.\w]|let )errors(\+\+| = )/.test(body)) {
    // The marks `const _errsN = errors` taken before each check are that constant too.
    out = out
      .replace(/^let errors = 0;$/m, 'const errors = 0;')
      .replace(/^const _errs\d+ = errors;\n/gm, '')
      .replace(/(?<![\w$."'/])_errs\d+(?![\w$"'])/g, 'errors');
    if (/_errs\d/.test(out)) throw new Error('Generated validators name _errsN where codegen cannot tell a mark from a property.');
    out = withoutConstantValidFlags(out);
  }
  if (!/(?<!let )\bvErrors = /.test(body)) out = out.replace(/^let vErrors = null;$/m, 'const vErrors = null;');
  return out;
}

/**
 * With the count constant, ajv's flags `var valid0 = errors === errors` (or
 * `= true`) are always true: when no flag is ever set otherwise, the tests
 * `if(valid0)` become `if(true)`, the `if(!valid0){break;}` after each item
 * goes, and so do the flags.
 */
function withoutConstantValidFlags(body: string): string {
  if (/(?<![\w$."'])_?valid\d+ = (?!errors === errors;$|true;$)/m.test(body)) return body;
  const out = body
    .replace(/^if\(_?valid\d+\)\{$/gm, 'if(true){')
    .replace(/^if\(!_?valid\d+\)\{\nbreak;\n\}\n/gm, '')
    .replace(/^var _?valid\d+ = (?:errors === errors|true);\n/gm, '');
  if (/(?<![\w$."'])_?valid\d+(?![\w$"'])/.test(out)) throw new Error('Generated validators read a valid flag in a way codegen does not know.');
  return out;
}

/**
 * Two checks ajv writes that can never fail where it writes them, left out:
 * - a tuple's `additionalItems` check right after its `maxItems` check
 *   returned for any longer array (maxItems at most the number of items);
 * - the number test and NaN test around a `minimum` or `maximum` right after
 *   the type check returned for anything that is not a finite number (or
 *   another allowed type): `typeof x == "number"` is all that is left to ask.
 * Each rewrite matches ajv's text exactly and leaves any other text as ajv
 * wrote it (codegen/validators.test.ts holds the result to ajv at run time).
 */
function withoutDeadChecks(code: string): string {
  const tuples = code.replace(
    /^(if\((\w+)\.length > (\d+)\)\{\nreturn fail\([^\n]*"maxItems"[^\n]*\n\}\nelse \{\n(?:if\(\2\.length < \d+\)\{\nreturn fail\([^\n]*"minItems"[^\n]*\n\}\nelse \{\n)?)const (len\d+) = \2\.length;\nif\(!\(\4 <= (\d+)\)\)\{\nreturn fail\([^\n]*"additionalItems"[^\n]*\n\}\nelse \{\n/gm,
    (all, kept: string, _data: string, maxItems: string, _len: string, items: string) => {
      return Number(maxItems) > Number(items) ? all : `${kept}{\n`;
    },
  );
  const bounds = tuples.replace(
    /^(if\([^\n]*isFinite\((\w+)\)[^\n]*\)\{\nreturn fail\([^\n]*"type"[^\n]*\n\}\n)if\(errors === (?:errors|0)\)\{\nif\(\(typeof \2 == "number"\) && \(isFinite\(\2\)\)\)\{\nif\(\2 ([<>]) (-?\d+(?:\.\d+)?) \|\| isNaN\(\2\)\)\{\n(return fail\([^\n]*"(?:minimum|maximum)"[^\n]*\n)\}\n\}\n\}\n/gm,
    (_, typeCheck: string, data: string, op: string, limit: string, failure: string) => `${typeCheck}if(typeof ${data} == "number" && ${data} ${op} ${limit}){\n${failure}}\n`,
  );
  return bounds;
}

/**
 * With `discriminator`, ajv reads the tag (`const tag0 = data7.op`) and
 * checks the branch its value selects, `if(tag0 === "put"){…}`; inside it the
 * branch's schema checks the tag property again: that it is present, a
 * string, and that constant. There those checks cannot fail: the presence
 * test becomes `false` (a minifier folds it away) and the string and constant
 * checks of the same value are left out. Any other text stays as ajv wrote it.
 */
function withoutDiscriminatorTagChecks(code: string): string {
  return code.replace(
    /^(const (tag\d+) = (\w+)\.(\w+);\nif\(typeof \2 == "string"\)\{\n)([^]*?)(^return fail\([^\n]*"discriminator", \{error: "mapping", tag: "\4", tagValue: \2\}\);)$/gm,
    (_, head: string, tag: string, data: string, property: string, branches: string, tail: string) => {
      const at = escapeRegExp(`${data}.${property}`);
      const branchStart = new RegExp(`^(?:else )?if\\(${tag} === ("(?:[^"\\\\]|\\\\.)*")\\)\\{$`, 'm');
      const rewritten = branches
        .split(new RegExp(`(?=^(?:else )?if\\(${tag} === ")`, 'm'))
        .map((branch) => {
          const value = branchStart.exec(branch)?.[1];
          if (value === undefined) return branch;
          const present = new RegExp(`\\(${at} === undefined\\) && \\(missing\\d+ = "${escapeRegExp(property)}"\\)`, 'g');
          const checked = new RegExp(
            `^if\\(${at} !== undefined\\)\\{\\nlet (data\\d+) = ${at};\\nif\\(typeof \\1 !== "string"\\)\\{\\nreturn fail\\([^\\n]*\\n\\}\\n` +
              `if\\(${escapeRegExp(value)} !== \\1\\)\\{\\nreturn fail\\([^\\n]*\\n\\}\\n(?:var (valid\\d+) = errors === errors;\\n)?\\}\\n(?:else \\{\\n(?:var \\2 = true;\\n)?\\}\\n)?`,
            'gm',
          );
          return branch
            .replace(present, 'false')
            .replace(checked, (_all, _data: string, valid: string | undefined) => (valid === undefined ? '' : `var ${valid} = true;\n`));
        })
        .join('');
      return head + rewritten + tail;
    },
  );
}

/**
 * ajv checks `required` first and returns at a missing property; the checks
 * of the properties follow in its `else` block, each behind
 * `if(data1.cookie !== undefined)`. In that block a required property is
 * there: its test becomes `true` (a minifier folds it and its `else` away).
 */
function withoutRequiredPresenceTests(code: string): string {
  const requiredChecks = [...code.matchAll(/^if\((.*\(missing\d+ = "\w+"\).*)\)\{\nreturn fail\([^\n]*"required"[^\n]*\n\}\nelse \{\n/gm)];
  let out = code;
  // From the last to the first, so an outer block is measured with its inner blocks already rewritten.
  for (const match of requiredChecks.reverse()) {
    const start = match.index + match[0].length;
    const end = blockEnd(out, start);
    let block = out.slice(start, end);
    for (const [, data, property] of match[1]!.matchAll(/\((\w+)\.(\w+) === undefined\) && \(missing\d+ = "\2"\)/g)) {
      block = block.replaceAll(`\nif(${data}.${property} !== undefined){\n`, '\nif(true){\n');
      if (block.startsWith(`if(${data}.${property} !== undefined){\n`)) block = `if(true){\n${block.slice(`if(${data}.${property} !== undefined){\n`.length)}`;
    }
    out = out.slice(0, start) + block + out.slice(end);
  }
  return out;
}

/** Index of the `}` that closes the block whose body starts at `start` (braces in string literals do not count). */
function blockEnd(code: string, start: number): number {
  let depth = 1;
  for (let i = start; i < code.length; i++) {
    const c = code[i];
    if (c === '"') {
      for (i++; code[i] !== '"'; i++) if (code[i] === '\\') i++;
    } else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  throw new Error('Generated validators have a block codegen cannot find the end of.');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * ajv tests an integer as `typeof x == "number" && !(x % 1) && !isNaN(x) &&
 * isFinite(x)`, which is what Number.isInteger(x) answers (one name for the
 * minifier instead of four uses of its letter for x).
 */
function withIntegerTests(code: string): string {
  return code.replace(/\(\(typeof (\w+) == "number"\) && \(!\(\1 % 1\) && !isNaN\(\1\)\)\) && \(isFinite\(\1\)\)/g, 'Number.isInteger($1)');
}

/** ajv escapes an object key for an error's instancePath in place, at each error; one shared function does it. */
const ESCAPE_SOURCE = `function escapeKey(key) {
  return key.replace(/~/g, "~0").replace(/\\//g, "~1");
}`;

function withSharedPointerEscape(code: string): string {
  if (/\bescapeKey\b/.test(code)) throw new Error('Generated validators already use the name escapeKey.');
  const shared = code.replace(/\b(key\d+)\.replace\(\/~\/g, "~0"\)\.replace\(\/\\\/\/g, "~1"\)/g, 'escapeKey($1)');
  if (shared.includes('.replace(/~/g, "~0")')) throw new Error('Generated validators escape a key in a way codegen cannot share.');
  return shared === code ? code : shared.replace(/^(function fail\()/m, `${ESCAPE_SOURCE}\n$1`);
}

function inlineRuntime(code: string): string {
  return code.replace(/require\("ajv\/dist\/runtime\/ucs2length"\)\.default/g, UCS2_LENGTH_SOURCE);
}

export function emitValidatorDeclarations(schemas: readonly NamedJsonSchema[]): string {
  const lines = [
    `// ${GENERATED_NOTICE}`,
    `import type * as T from './types';`,
    '',
    '/** An ajv error without message or schemaPath (see src/protocol/validation-message.ts). */',
    'export interface ValidationError {',
    '  readonly instancePath: string;',
    '  readonly keyword: string;',
    '  readonly params: Record<string, unknown>;',
    '}',
    '',
    'export interface Validator<T> {',
    '  (data: unknown): data is T;',
    '  errors?: ValidationError[] | null;',
    '}',
    '',
  ];
  for (const { name } of schemas) {
    lines.push(`export declare const ${validatorName(name)}: Validator<T.${name}>;`);
  }
  return lines.join('\n') + '\n';
}
