/**
 * Resource-level writes for the providers (docs/ARCHITECTURE.md, "Providers"): one profile or one endpoint at a time,
 * as Terraform's tmkit_profile / tmkit_*_endpoint and Pulumi's Profile / Endpoint manage them. One module for
 * both: `new StackResources(client, { stack, refreshHint })`. Every write carries the provider's stack and a
 * precondition, so a provider never overwrites or deletes what it does not own, and a write that finds the
 * object changed by someone else fails with a message that says what changed and what to do (the provider's
 * `refreshHint`). Nothing is validated here: the server validates every write whole (400 names the path).
 * Names are ARM's (the tmkit model's); mapping to a tool's own attribute names is the provider's job.
 *
 * Two kinds of profile resource:
 * - one that **owns its endpoints** (azure-native's Profile with `endpoints`): a PUT of the whole profile,
 *   `If-Match` with the ETag the provider last saw (any change by someone else is a conflict);
 * - one that **owns only its settings** (its endpoints are separate resources: every Terraform tmkit_profile,
 *   a Pulumi Profile without `endpoints`): a merge patch of the settings that never touches endpoints. Its
 *   conflict check compares the settings the provider last saw with the stored ones, since the profile's ETag
 *   moves whenever one of its endpoint resources writes; the patch is then sent with `If-Match` of the version
 *   compared, and re-done when an endpoint write slipped in.
 * Endpoints are written one at a time with their own ETag, which changes only when that endpoint changes. A
 * provider that keeps no ETag in its state (Terraform) gives the endpoint it last saw instead: it is compared
 * with the stored one, and the write is `If-Match` the version compared.
 *
 * Creates are idempotent: a create that finds the object (412), or whose answer was lost on the way back (the
 * connection broke after the request was sent, so it may have been written), reads it back and adopts it when
 * it is exactly what this create writes, in this stack; a lost create that wrote nothing is sent once more.
 * So a run whose create reached the server but never heard back converges on the next try instead of failing
 * with RESOURCE_EXISTS until a manual import.
 *
 * Refusals (ResourceError, codes catalogued in core/codes): RESOURCE_EXISTS (a create found the object with other
 * content: import it), RESOURCE_NOT_OWNED (another stack's profile), RESOURCE_CHANGED (changed since it was read), RESOURCE_GONE
 * (deleted since it was read), RESOURCE_HAS_ENDPOINTS (a settings-only profile to delete still has endpoints),
 * RESOURCE_PROFILE_MISSING (an endpoint's profile does not exist). Server validation errors stay TmkitApiErrors.
 *
 * The parts: what they share (`resource-common.ts`), the profile writes (`profile-writes.ts`) and the
 * endpoint writes with `StackResources` itself (`endpoint-writes.ts`).
 */
export { StackResources } from './endpoint-writes';
export {
  describeChanges,
  type EndpointState,
  normalizeEndpoint,
  normalizeSettings,
  type PriorEndpoint,
  type PriorProfile,
  profileSettings,
  ResourceError,
  type ResourceErrorCode,
  type ProfileSettings,
  type ProfileSettingsInput,
  type StackOptions,
} from './resource-common';
