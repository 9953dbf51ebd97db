/**
 * Converts the JSON Azure prints for Traffic Manager profiles into a `tmkit/v1` document (pure).
 *
 * Accepted inputs (detected by shape, see `detectArmInput`):
 * - one profile resource as the REST API / `az rest` / `az resource show` print it: `{id, name, type,
 *   location, properties: {profileStatus, trafficRoutingMethod, dnsConfig, monitorConfig, endpoints: [...]}}`;
 * - the same, flattened as `az network traffic-manager profile show` prints it (no `properties` wrapper);
 * - an array of those, or a list response `{value: [...]}`;
 * - an ARM template (`{resources: [...]}`) holding `Microsoft.Network/trafficManagerProfiles` resources, with
 *   endpoints inline, as child resources (`resources`) or as top-level endpoint resources named
 *   `<profile>/<endpoint>`. ARM expressions are evaluated only in their simplest literal forms
 *   (`[parameters('x')]` / `[variables('x')]` with a literal value, `[resourceId('...trafficManagerProfiles', 'x')]`).
 *
 * Read-only properties (`id`, `fqdn`, `profileMonitorStatus`, `endpointMonitorStatus`, a nested endpoint's
 * `target`, ...) are dropped; `null` values and empty optional lists are omitted; `weight` is kept only in
 * Weighted profiles and `priority` only in Priority profiles (Azure prints both on every endpoint). A nested endpoint's
 * `targetResourceId` becomes the child profile's name when that profile is part of the import, else the
 * ARM id is kept (tmkit accepts ids ending in `/trafficManagerProfiles/<name>`); tmkit's own ids
 * (`/providers/Microsoft.Network/trafficManagerProfiles/<name>`, from `tmkit get --output arm`) become the
 * name again. Everything that could
 * not be converted faithfully is reported as an issue with a `tmkit/v1` path; nothing is thrown.
 *
 * The parts: the input's shape (`arm-shape.ts`), ARM templates (`arm-template.ts`), the ARM → tmkit
 * mapping (`arm-mapping.ts`) and the canonical key order (`arm-canonical.ts`).
 */
import { canonicalDocumentInput } from './arm-canonical';
import { Importer } from './arm-mapping';
import { detectArmInput, isObj, type Obj } from './arm-shape';
import { templateProfiles } from './arm-template';
import { profileNameOfTmkitId } from './arm-export';
import { childProfileName } from './names';
import { API_VERSION, type DocumentInput, type EndpointInput } from './types';
import type { Diagnostic } from '../diagnostics';

export { canonicalDocumentInput } from './arm-canonical';
export { type ArmInputKind, detectArmInput } from './arm-shape';

export interface ArmImportOptions {
  /** The `stack` of the produced document; omitted (the default stack) when undefined. */
  stack?: string;
}

export interface ArmImportResult {
  /** Undefined only when the input held no profile at all. */
  document?: DocumentInput;
  issues: Diagnostic[];
}

/**
 * Converts Azure's JSON for one or more Traffic Manager profiles (or an ARM template) into a `tmkit/v1`
 * document input (not normalized: only what Azure printed, minus read-only values). Never throws.
 */
export function importArm(input: unknown, options: ArmImportOptions = {}): ArmImportResult {
  const kind = detectArmInput(input);
  let resources: Obj[] = [];
  let imp: Importer;
  if (kind === 'arm-template') {
    const t = input as Obj;
    imp = new Importer({ parameters: isObj(t.parameters) ? t.parameters : {}, variables: isObj(t.variables) ? t.variables : {} });
    resources = templateProfiles(imp, t.resources as unknown[]);
  } else {
    imp = new Importer(undefined);
    if (kind === 'arm-profile') resources = [input as Obj];
    else if (kind === 'arm-profile-list') resources = (Array.isArray(input) ? input : ((input as Obj).value as unknown[])) as Obj[];
    else {
      imp.issue(
        'error',
        'ARM_IMPORT_UNRECOGNIZED',
        '$',
        kind === 'tmkit'
          ? 'the input already is a tmkit document'
          : 'the input is not a Traffic Manager profile, a list of profiles or an ARM template',
        kind === 'tmkit'
          ? 'use it as it is'
          : 'export a profile with `az network traffic-manager profile show -g <group> -n <name>` (or the REST API) and import that JSON',
      );
      return { issues: imp.issues };
    }
  }

  const profiles = resources.flatMap((r, i) => {
    const p = imp.profile(r, i);
    return p ? [p] : [];
  });
  if (profiles.length === 0) {
    if (!imp.issues.some((x) => x.severity === 'error')) {
      imp.issue('error', 'ARM_IMPORT_NO_PROFILES', '$', 'the input contains no Microsoft.Network/trafficManagerProfiles resource');
    }
    return { issues: imp.issues };
  }

  // Nested endpoints: point at the child profile by name when it is part of this import.
  const byName = new Map(profiles.map((p) => [p.name.toLowerCase(), p.name]));
  for (const p of profiles) {
    for (const e of p.endpoints ?? []) {
      const raw = e as EndpointInput & { nestedTargetFqdn?: string };
      const fqdn = raw.nestedTargetFqdn;
      delete raw.nestedTargetFqdn;
      if (e.type !== 'nestedEndpoints') continue;
      const at = `profiles[${p.name}].endpoints[${e.name}].targetResourceId`;
      if (typeof e.targetResourceId === 'string') {
        const child = byName.get(childProfileName(e.targetResourceId).toLowerCase());
        // tmkit's own ids (`tmkit get --output arm`) name a profile of the runtime: back to the name it had.
        const own = profileNameOfTmkitId(e.targetResourceId);
        if (child !== undefined) e.targetResourceId = child;
        else if (own !== undefined) e.targetResourceId = own;
        else {
          imp.issue(
            'warning',
            'ARM_IMPORT_NESTED_OUTSIDE',
            at,
            `nested endpoint "${e.name}" points at profile "${childProfileName(e.targetResourceId)}", which is not part of this import; the id was kept`,
            'import the child profile together with its parent (pass an array of both profiles)',
          );
        }
        continue;
      }
      const target = fqdn?.toLowerCase().replace(/\.$/, '');
      const child =
        target === undefined
          ? undefined
          : profiles.find(
              (c) =>
                c !== p && typeof c.dnsConfig?.relativeName === 'string' && target.startsWith(`${c.dnsConfig.relativeName.toLowerCase()}.`),
            );
      if (child) e.targetResourceId = child.name;
      else {
        imp.issue(
          'error',
          'ARM_IMPORT_NESTED_TARGET',
          at,
          `nested endpoint "${e.name}" has no targetResourceId${fqdn ? ` and its target ${fqdn} matches no imported profile` : ''}`,
          "import the child profile too, or set targetResourceId to the child profile's name",
        );
      }
    }
  }

  const doc: DocumentInput = { apiVersion: API_VERSION, profiles };
  if (options.stack !== undefined) doc.stack = options.stack;
  return { document: canonicalDocumentInput(doc), issues: imp.issues };
}
