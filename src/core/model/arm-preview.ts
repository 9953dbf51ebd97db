/**
 * `tmkit plan --from-arm AFTER.json --deployed-arm BEFORE.json`: Azure's own Traffic Manager before and
 * after, each file an ARM template's `Microsoft.Network/trafficManagerProfiles` resources or the JSON of
 * `az network traffic-manager profile show/list` (REST alike), as two `tmkit/v1` documents through the ARM
 * import mapping (arm-import.ts). Azure endpoints: `az` output carries their resource's `target` and
 * `endpointLocation`, which go to `catalog` (so both forms compare equal); a template has only the resource
 * id, so a resource no file describes gets a stand-in named after it, said in `standIns`. Pure.
 */
import type { Diagnostic } from '../diagnostics';
import { importArm } from './arm-import';
import { AZURE_PREVIEW_STACK, standInTarget } from './azurerm-plan';
import type { ResourceCatalogRecord } from './catalog';
import type { DocumentInput } from './types';

export interface ArmPreviewDocuments {
  before: DocumentInput;
  after: DocumentInput;
  /** Import problems of each file (errors mean the file cannot be previewed). */
  issues: { before: Diagnostic[]; after: Diagnostic[] };
  catalog: ResourceCatalogRecord;
  /** ARM id → the sentence that says its target is a stand-in. */
  standIns: Record<string, string>;
}

/** The before (undefined: nothing deployed yet) and after documents of two ARM files. Never throws. */
export function armPreviewDocuments(after: unknown, before: unknown): ArmPreviewDocuments {
  const empty = (): DocumentInput => ({ apiVersion: 'tmkit/v1', stack: AZURE_PREVIEW_STACK, profiles: [] });
  const a = importArm(after, { stack: AZURE_PREVIEW_STACK });
  const b = before === undefined ? { document: empty(), issues: [] } : importArm(before, { stack: AZURE_PREVIEW_STACK });
  const out: ArmPreviewDocuments = {
    before: b.document ?? empty(),
    after: a.document ?? empty(),
    issues: { before: b.issues, after: a.issues },
    catalog: {},
    standIns: {},
  };
  // An Azure endpoint's target and region are its resource's (read-only in `az` output): into the catalog, so
  // a template (which has neither) and `az` output (which has both) compare equal.
  for (const doc of [out.before, out.after]) {
    for (const p of doc.profiles ?? []) {
      for (const e of p.endpoints ?? []) {
        if (e.type !== 'azureEndpoints' || typeof e.targetResourceId !== 'string') continue;
        const id = e.targetResourceId;
        if (typeof e.target === 'string' && out.catalog[id] === undefined) {
          out.catalog[id] = { target: e.target, ...(e.endpointLocation ? { location: e.endpointLocation } : {}), state: 'running' };
        }
        delete e.target;
        delete e.endpointLocation;
      }
    }
  }
  for (const doc of [out.before, out.after]) {
    for (const p of doc.profiles ?? []) {
      for (const e of p.endpoints ?? []) {
        if (e.type !== 'azureEndpoints' || typeof e.targetResourceId !== 'string') continue;
        const id = e.targetResourceId;
        if (out.catalog[id] !== undefined) continue;
        const target = standInTarget(id);
        out.catalog[id] = { target, state: 'running' };
        out.standIns[id] =
          `profiles[${p.name}].endpoints[${e.name}]: the file does not say what its Azure resource answers with; previewed as ${target} ` +
          'without a region (pass --resources with the real target and region, or use `az network traffic-manager profile show` output)';
      }
    }
  }
  return out;
}
