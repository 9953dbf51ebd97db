/**
 * TEST-ONLY provider `tmkittest` (registry.terraform.io/tmkit/tmkittest): exercises the protocol layer end
 * to end with the real terraform. Its "backend" is a JSON file (provider argument `state_file`, or env
 * TMKITTEST_STATE_FILE) that tests may edit to simulate drift.
 *
 * resource tmkittest_thing (schema version 1; version 0 stored `size` as a string):
 *   name (required, replaces), size (number), tags (map of string), aliases (set of string),
 *   id and revision (computed; revision counts applied changes), settings { port, labels,
 *   rule { name, weight 0-1000 } (list) }, member { name, role } (set)
 * data tmkittest_lookup: name → id, size, found
 * env TMKITTEST_CREATE_DELAY_MS makes create slow (for shutdown tests).
 * `stateless = true` in the provider block: no backend at all (create stores what was planned, read finds
 * what Terraform last stored): the plugin layer's own floor, which bench/terraform.ts measures providers against.
 * resource tmkittest_profile_shape, tmkittest_external_endpoint_shape: tmkit's own schemas (tmkit/schemas.ts)
 * with no backend and no checks (computed values Terraform leaves unknown become null), so that benchmark can
 * tell what Terraform spends on tmkit's schemas from what the tmkit provider and server add.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { provider, valueEquals, type Resource } from '../provider';
import { UNKNOWN, isUnknown, type ValueObject } from '../cty';
import { DiagnosticsError, error, path, type Diagnostic } from '../tfprotov6';
import type { Schema } from '../schema';
import { externalEndpointSchema, profileSchema } from '../tmkit/schemas';
import type { Value } from '../cty';

interface Ctx {
  /** The backend file; undefined when stateless. */
  file?: string;
}

type Stored = Record<string, ValueObject>;

function load(file: string): Stored {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { things?: Stored }).things ?? {};
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw e;
  }
}

function save(file: string, things: Stored): void {
  writeFileSync(`${file}.tmp`, `${JSON.stringify({ things }, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
}

export const thingSchema: Schema = {
  version: 1,
  block: {
    attributes: {
      id: { type: 'string', computed: true, description: 'thing-<name>' },
      name: { type: 'string', required: true, requiresReplace: true },
      size: { type: 'number', optional: true },
      tags: { type: ['map', 'string'], optional: true },
      aliases: { type: ['set', 'string'], optional: true },
      revision: { type: 'number', computed: true },
    },
    blocks: {
      settings: {
        nesting: 'single',
        block: {
          attributes: { port: { type: 'number', optional: true }, labels: { type: ['list', 'string'], optional: true } },
          blocks: {
            rule: {
              nesting: 'list',
              block: { attributes: { name: { type: 'string', required: true }, weight: { type: 'number', optional: true } } },
            },
          },
        },
      },
      member: {
        nesting: 'set',
        block: { attributes: { name: { type: 'string', required: true }, role: { type: 'string', optional: true } } },
      },
    },
  },
};

/** The configurable part of a thing (what the backend stores besides id and revision). */
const FIELDS = ['name', 'size', 'tags', 'aliases', 'settings', 'member'] as const;

function record(v: ValueObject, id: string, revision: number): ValueObject {
  const out: ValueObject = { id, revision };
  for (const f of FIELDS) out[f] = v[f] ?? null;
  return out;
}

const thing: Resource<Ctx> = {
  schema: thingSchema,
  validate(config) {
    const out: Diagnostic[] = [];
    const size = config.size;
    if (typeof size === 'number' && size < 0) out.push(error('size must not be negative', `Got ${size}; use 0 or more.`, path('size')));
    const settings = config.settings;
    if (settings && typeof settings === 'object' && !Array.isArray(settings) && !isUnknown(settings)) {
      const rules = (settings as ValueObject).rule;
      if (Array.isArray(rules)) {
        rules.forEach((r, i) => {
          const w = (r as ValueObject).weight;
          if (typeof w === 'number' && (w < 0 || w > 1000))
            out.push(error('weight must be between 0 and 1000', `Rule ${i} has weight ${w}.`, path('settings', 'rule', i, 'weight')));
        });
      }
    }
    return out;
  },
  plan({ prior, planned }) {
    // revision changes with every applied change: unknown until apply when anything but it differs.
    if (!prior || !planned) return;
    const changed = FIELDS.some((f) => !valueEquals(prior[f] ?? null, planned[f] ?? null));
    if (changed) return { planned: { ...planned, revision: UNKNOWN } };
  },
  async create({ planned }, { file }) {
    // tests: a slow create (an apply in flight when Terraform shuts the plugin down)
    const delay = Number(process.env.TMKITTEST_CREATE_DELAY_MS ?? 0);
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    if (file === undefined) return record(planned, `thing-${planned.name as string}`, 1);
    const things = load(file);
    const id = `thing-${planned.name as string}`;
    if (things[id])
      throw new DiagnosticsError(
        error(`A thing named "${planned.name as string}" already exists`, `Import it: terraform import <address> ${id}`, path('name')),
      );
    things[id] = record(planned, id, 1);
    save(file, things);
    return things[id]!;
  },
  read(state, { file }) {
    if (file === undefined) return state;
    return load(file)[state.id as string] ?? null;
  },
  update({ prior, planned }, { file }) {
    if (file === undefined) return record(planned, prior.id as string, (prior.revision as number) + 1);
    const things = load(file);
    const id = prior.id as string;
    const cur = things[id];
    if (!cur) throw new DiagnosticsError(error(`${id} no longer exists`, 'Run terraform apply again to create it.'));
    things[id] = record(planned, id, (cur.revision as number) + 1);
    save(file, things);
    return things[id]!;
  },
  delete(state, { file }) {
    if (file === undefined) return;
    const things = load(file);
    delete things[state.id as string];
    save(file, things);
  },
  import(id, { file }) {
    if (file === undefined || !load(file)[id])
      throw new DiagnosticsError(error(`Cannot import ${JSON.stringify(id)}: no such thing`, 'Import ids look like thing-<name>.'));
    return { id };
  },
  upgrade(version, json) {
    // version 0 stored size as a decimal string
    if (version !== 0) throw new Error(`no upgrade from version ${version}`);
    const old = json as Record<string, unknown>;
    return { ...(old as ValueObject), size: old.size === null || old.size === undefined ? null : Number(old.size) };
  },
};

/** `v` with every unknown value (a computed attribute the config leaves open) set to null. */
function known(v: Value): Value {
  if (isUnknown(v)) return null;
  if (Array.isArray(v)) return v.map(known);
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, known(x as Value)])) as ValueObject;
  }
  return v;
}

/** A resource with `schema` and nothing behind it: what Terraform alone spends on such resources. */
function shaped(schema: Schema, kind: string): Resource<Ctx> {
  return {
    schema,
    create: ({ planned }) => ({ ...(known(planned) as ValueObject), id: `/${kind}/${String(planned.name)}` }),
    read: (state) => state,
    update: ({ prior, planned }) => ({ ...(known(planned) as ValueObject), id: prior.id ?? null }),
    delete: () => undefined,
  };
}

export const tmkittest = provider<Ctx>({
  schema: {
    block: {
      attributes: {
        state_file: {
          type: 'string',
          optional: true,
          description: 'the JSON file that holds the things (default: env TMKITTEST_STATE_FILE)',
        },
        stateless: { type: 'bool', optional: true, description: 'no backend: things are what Terraform stores (a floor for benchmarks)' },
      },
    },
  },
  configure(config) {
    if (config.stateless === true) return {};
    const file = (config.state_file as string | null) ?? process.env.TMKITTEST_STATE_FILE;
    if (!file)
      throw new DiagnosticsError(
        error('No state file', 'Set state_file in the provider block or TMKITTEST_STATE_FILE.', path('state_file')),
      );
    // console output of a provider must never reach stdout (the plugin layer sends it to stderr)
    console.log(`tmkittest: configured with ${file}`);
    return { file };
  },
  resources: {
    tmkittest_thing: thing,
    tmkittest_profile_shape: shaped(profileSchema, 'profiles'),
    tmkittest_external_endpoint_shape: shaped(externalEndpointSchema, 'externalEndpoints'),
  },
  dataSources: {
    tmkittest_lookup: {
      schema: {
        block: {
          attributes: {
            name: { type: 'string', required: true },
            id: { type: 'string', computed: true },
            size: { type: 'number', computed: true },
            found: { type: 'bool', computed: true },
          },
        },
      },
      read(config, { file }) {
        const id = `thing-${config.name as string}`;
        const t = file === undefined ? undefined : load(file)[id];
        return { name: config.name ?? null, id: t ? id : null, size: t ? (t.size ?? null) : null, found: !!t };
      },
    },
  },
});
