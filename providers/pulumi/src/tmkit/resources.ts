/**
 * tmkit:index:Profile and tmkit:index:Endpoint as ResourceImpls: check and diff are this package's (tmkit's
 * validator and attribute diff), every write goes through src/client/resources.ts with the provider's stack
 * and ETags, and every read returns inputs and outputs (refresh shows drift, import adopts). One module per
 * resource (./profile, ./endpoint) over what they share (./common).
 *
 * Replacement in place. A Profile whose dnsConfig.relativeName changes is replaced (its DNS identity
 * changes, as `tmkit plan` says), but it keeps its name and so its id: the replacement is the same tmkit
 * profile. Diff notes such a replacement; the Create that follows writes over the old object (If-Match, as an
 * update) and the Delete of the old one leaves it be, in whichever order the engine runs them. So nested
 * endpoints that point at the profile, and the endpoints its Endpoint resources own, stay. An Endpoint whose
 * endpointType changes (its id has the type) works the same way. Without that note (a Delete in a later run
 * after an interrupted replacement) the Delete's ETag check refuses to delete the newer object.
 */
export type { TmkitContext } from './common';
export { endpointResource } from './endpoint';
export { profileResource } from './profile';
