import type { Diagnostic } from '../diagnostics';
import type { Profile } from '../model/types';

/**
 * The plan engine's data (docs/ARCHITECTURE.md): `diff()` produces a `Plan`, `render*` present it. Nothing here
 * knows about terminals, files or HTTP: the CLI and `tmkit apply` do that with what these types carry.
 */

/** One profile as the runtime stores it (management API `GET /v1/profiles`): the normalized profile, its ETag and owning stack. */
export interface DeployedProfile {
  profile: Profile;
  etag: string;
  stack: string;
}

/** `replace`: the profile keeps its name but its DNS identity changes (see `REPLACE_PATHS`). */
export type ProfileAction = 'create' | 'update' | 'replace' | 'delete' | 'no-op';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * One attribute-level change, keyed by a stable path: properties joined with `.`, keyed array elements and
 * map keys in brackets (`endpoints[eu].weight`, `monitorConfig.customHeaders[host].value`, `tags[team]`);
 * keys with spaces, brackets or quotes are JSON-quoted (`endpoints["my ep"]`). Endpoints and custom headers
 * are matched by `name`, never by position.
 *
 * - `add` / `remove`: the value (a whole endpoint for `endpoints[x]`) appears / disappears;
 * - `change`: scalar or whole-array value replaced (`geoMapping`, `subnets` compare as whole lists);
 * - `reorder`: a keyed list keeps its members but their order changes (`before`/`after` are key lists).
 */
export interface AttributeChange {
  path: string;
  kind: 'add' | 'remove' | 'change' | 'reorder';
  before?: JsonValue;
  after?: JsonValue;
  /** True when this change alone makes the profile a `replace`. */
  forcesReplacement?: boolean;
}

export interface ProfileChange {
  profile: string;
  action: ProfileAction;
  /** Deployed version (absent on create). */
  before?: Profile;
  /** Desired version (absent on delete). */
  after?: Profile;
  /** ETag of the deployed version the plan was computed against (absent on create). */
  baseEtag?: string;
  /** Attribute changes in a stable order (empty for no-op; create/delete carry none: the whole profile is the change). */
  attributes: AttributeChange[];
  /** Why a replace is a replace, one sentence per forcing attribute. */
  replaceReasons: string[];
}

/**
 * One call the runtime must accept, in order. `tmkit apply` executes steps one by one:
 * `PUT /v1/profiles/{profile}` with `body` and `If-Match: ifMatch` (update/replace) or
 * `If-None-Match: *` (create); `DELETE /v1/profiles/{profile}` with `If-Match: ifMatch`.
 */
export interface PlanStep {
  action: 'create' | 'update' | 'replace' | 'delete';
  profile: string;
  method: 'PUT' | 'DELETE';
  ifMatch?: string;
  ifNoneMatch?: '*';
  /** Why this step must come after earlier ones (`after create of eu-child (nested by this profile)`). */
  after: string[];
}

export interface PlanSummary {
  add: number;
  change: number;
  replace: number;
  destroy: number;
  unchanged: number;
}

export interface Plan {
  stack: string;
  /** Every profile in scope (the document's and the stack's deployed ones), sorted by name; no-ops included. */
  changes: ProfileChange[];
  /** Apply order; empty when `errors` is not. */
  steps: PlanStep[];
  /** Problems that make the plan unappliable (another stack's profile, dangling nested reference, ...). */
  errors: Diagnostic[];
  summary: PlanSummary;
}

/** Where a renderer writes; a Node writable stream fits, so does an array collector. */
export interface Writer {
  write(chunk: string): unknown;
}
