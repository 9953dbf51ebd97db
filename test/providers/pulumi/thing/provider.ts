/**
 * TEST-ONLY resource type `tmkittest:index:Thing`, served by the real provider layer to exercise it end to
 * end. A Thing is a record in a JSON file (config `tmkittest:file`), so a test can edit the "cloud" behind
 * Pulumi's back and see refresh find the drift.
 *
 * Inputs: name (the id; default the logical name; replace), zone (replace: same id, so delete first),
 * size (1–100), token (secret), nested {host, port, tags?}. Outputs: the inputs plus fqdn and revision.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { diffProperties } from '../../../../providers/pulumi/src/diff';
import type { CheckFailure, ProviderImpl, ResourceImpl } from '../../../../providers/pulumi/src/provider';
import { ProviderError } from '../../../../providers/pulumi/src/provider';
import {
  UNKNOWN,
  isObject,
  isUnknown,
  reveal,
  secret,
  type PlainMap,
  type PropertyMap,
  type Value,
} from '../../../../providers/pulumi/src/values';

export const THING = 'tmkittest:index:Thing';

export interface ThingRecord {
  zone: string;
  size: number;
  token: string;
  nested: { host: string; port: number; tags?: string[] };
  owner: string;
  revision: number;
}

export interface DataFile {
  things: Record<string, ThingRecord>;
}

export function readData(file: string): DataFile {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as DataFile;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { things: {} };
    throw err;
  }
}

export function writeData(file: string, data: DataFile): void {
  writeFileSync(`${file}.tmp`, `${JSON.stringify(data, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
}

const INPUTS = ['name', 'zone', 'size', 'token', 'nested'];
const NAME = /^[a-z0-9][a-z0-9-]*$/;

function checkThing(news: PropertyMap, logicalName: string): { inputs: PropertyMap; failures: CheckFailure[] } {
  const failures: CheckFailure[] = [];
  const fail = (property: string, reason: string): void => {
    failures.push({ property, reason });
  };
  for (const k of Object.keys(news)) if (!INPUTS.includes(k)) fail(k, `unknown property; a Thing takes ${INPUTS.join(', ')}`);
  const inputs: PropertyMap = { ...news, name: news.name ?? logicalName };
  const v = reveal(inputs);
  const known = (x: unknown): boolean => x !== undefined && x !== null && !isUnknown(x);
  if (known(v.name) && (typeof v.name !== 'string' || !NAME.test(v.name)))
    fail('name', 'must be lower-case letters, digits and hyphens, starting with a letter or digit');
  if (!known(v.zone) && !isUnknown(v.zone)) fail('zone', 'is required');
  else if (known(v.zone) && typeof v.zone !== 'string') fail('zone', 'must be a string');
  if (known(v.size) && (typeof v.size !== 'number' || !Number.isInteger(v.size) || v.size < 1 || v.size > 100))
    fail('size', 'must be an integer from 1 to 100');
  if (known(v.token) && typeof v.token !== 'string') fail('token', 'must be a string');
  const nested = v.nested;
  if (!known(nested) && !isUnknown(nested)) fail('nested', 'is required');
  else if (known(nested)) {
    if (!isObject(nested)) fail('nested', 'must be an object {host, port, tags?}');
    else {
      const n = nested as PlainMap;
      if (!isUnknown(n.host) && (typeof n.host !== 'string' || n.host === '')) fail('nested.host', 'must be a non-empty string');
      if (!isUnknown(n.port) && (typeof n.port !== 'number' || !Number.isInteger(n.port) || n.port < 1 || n.port > 65535))
        fail('nested.port', 'must be an integer port from 1 to 65535');
      const tags = n.tags;
      if (tags !== undefined && tags !== null && !isUnknown(tags)) {
        if (!Array.isArray(tags)) fail('nested.tags', 'must be a list of strings');
        else
          tags.forEach((t, i) => {
            if (!isUnknown(t) && typeof t !== 'string') fail(`nested.tags[${i}]`, 'must be a string');
          });
      }
      for (const k of Object.keys(n))
        if (!['host', 'port', 'tags'].includes(k)) fail(`nested.${k}`, 'unknown property; nested takes host, port, tags');
    }
  }
  if (inputs.token !== undefined && inputs.token !== null) inputs.token = secret(inputs.token);
  return { inputs, failures };
}

function toRecord(inputs: PropertyMap, owner: string, revision: number): ThingRecord {
  const v = reveal(inputs) as unknown as { zone: string; size?: number; token?: string; nested: ThingRecord['nested'] };
  const nested: ThingRecord['nested'] = { host: v.nested.host, port: v.nested.port };
  if (v.nested.tags) nested.tags = [...v.nested.tags];
  return { zone: v.zone, size: v.size ?? 1, token: v.token ?? '', nested, owner, revision };
}

function inputsOf(name: string, r: ThingRecord): PropertyMap {
  const nested: PropertyMap = { host: r.nested.host, port: r.nested.port };
  if (r.nested.tags) nested.tags = [...r.nested.tags];
  const out: PropertyMap = { name, zone: r.zone, size: r.size, nested };
  if (r.token !== '') out.token = secret(r.token);
  return out;
}

function outputsOf(name: string, r: ThingRecord): PropertyMap {
  return { ...inputsOf(name, r), fqdn: `${name}.${r.zone}`, revision: r.revision, owner: r.owner };
}

export function thingProvider(
  env: Readonly<Record<string, string | undefined>> = process.env,
): ProviderImpl & { readonly file: string | undefined } {
  let file: string | undefined;
  let owner = 'pulumi';
  const dataFile = (): string => {
    if (!file)
      throw new ProviderError(
        'tmkittest:file is not set: set it to the JSON file that holds the Things (or TMKITTEST_FILE)',
        'FAILED_PRECONDITION',
      );
    return file;
  };

  const thing: ResourceImpl = {
    computed: ['fqdn', 'revision', 'owner'],
    secretOutputs: ['token'],
    replaceOnChanges: ['name', 'zone'],
    check: (req) => checkThing(req.news, req.name),
    diff: (req) => {
      const d = diffProperties(req.oldInputs, req.news, { replaceOnChanges: ['name', 'zone'] });
      // Same name = same id: the replacement cannot exist beside the old one.
      return { ...d, deleteBeforeReplace: (d.replaces ?? []).includes('zone') && !(d.replaces ?? []).includes('name') };
    },
    preview: (req) => {
      const name = String(reveal(req.inputs.name ?? null));
      const zone = reveal(req.inputs.zone ?? null);
      const fqdn: Value = typeof zone === 'string' && !isUnknown(req.inputs.name) ? `${name}.${zone}` : UNKNOWN;
      return { ...req.inputs, fqdn, revision: UNKNOWN, owner };
    },
    create: (req) => {
      const name = String(reveal(req.inputs.name!));
      const data = readData(dataFile());
      if (data.things[name])
        throw new ProviderError(
          `a Thing named "${name}" already exists in ${dataFile()}: import it ({import: "${name}"}) or pick another name`,
          'ALREADY_EXISTS',
        );
      const record = toRecord(req.inputs, owner, 1);
      data.things[name] = record;
      writeData(dataFile(), data);
      return { id: name, outputs: outputsOf(name, record) };
    },
    read: (req) => {
      const record = readData(dataFile()).things[req.id];
      if (!record) return undefined;
      return { id: req.id, outputs: outputsOf(req.id, record), inputs: inputsOf(req.id, record) };
    },
    update: (req) => {
      const data = readData(dataFile());
      const old = data.things[req.id];
      if (!old)
        throw new ProviderError(
          `the Thing "${req.id}" no longer exists in ${dataFile()}: run \`pulumi refresh\` to drop it from state`,
          'NOT_FOUND',
        );
      const record = toRecord(req.news, owner, old.revision + 1);
      data.things[req.id] = record;
      writeData(dataFile(), data);
      return { outputs: outputsOf(req.id, record) };
    },
    delete: (req) => {
      const data = readData(dataFile());
      delete data.things[req.id];
      writeData(dataFile(), data);
    },
  };

  return {
    name: 'tmkittest',
    version: '0.0.1',
    schema: () => JSON.stringify(thingSchema()),
    checkConfig: (req) => {
      const failures: CheckFailure[] = [];
      const v = reveal(req.news);
      for (const k of Object.keys(v))
        if (!['file', 'owner', 'version'].includes(k))
          failures.push({
            property: k,
            reason: `unknown configuration key "tmkittest:${k}"; the keys are tmkittest:file, tmkittest:owner`,
          });
      if (v.owner !== undefined && (typeof v.owner !== 'string' || !NAME.test(v.owner)))
        failures.push({ property: 'owner', reason: 'tmkittest:owner must be lower-case letters, digits and hyphens' });
      return { inputs: req.news, failures };
    },
    configure: (config) => {
      const v = reveal(config);
      file = typeof v.file === 'string' && v.file !== '' ? v.file : env.TMKITTEST_FILE;
      if (typeof v.owner === 'string') owner = v.owner;
    },
    get file() {
      return file;
    },
    resources: { [THING]: thing },
  };
}

export function thingSchema(): Record<string, unknown> {
  const nested = { type: 'object', $ref: '#/types/tmkittest:index:Nested' };
  const props = {
    name: { type: 'string' },
    zone: { type: 'string' },
    size: { type: 'integer' },
    token: { type: 'string', secret: true },
    nested,
  };
  return {
    name: 'tmkittest',
    version: '0.0.1',
    config: { variables: { file: { type: 'string' }, owner: { type: 'string', default: 'pulumi' } } },
    provider: { inputProperties: { file: { type: 'string' }, owner: { type: 'string' } } },
    types: {
      'tmkittest:index:Nested': {
        type: 'object',
        properties: { host: { type: 'string' }, port: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } },
        required: ['host', 'port'],
      },
    },
    resources: {
      [THING]: {
        inputProperties: props,
        requiredInputs: ['zone', 'nested'],
        properties: { ...props, fqdn: { type: 'string' }, revision: { type: 'integer' }, owner: { type: 'string' } },
        required: ['name', 'zone', 'size', 'nested', 'fqdn', 'revision', 'owner'],
        replaceOnChanges: ['name', 'zone'],
      },
    },
    functions: {},
  };
}
