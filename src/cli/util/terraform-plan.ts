import type { Diagnostic } from '../../core/diagnostics';
import type { Document } from '../../core/model/types';
import type { DeployedProfile } from '../../core/plan';
import { documentFromTerraformPlan, maskSensitive } from '../../../providers/terraform/src/tmkit/from-plan';
import { CliError } from '../errors';
import { readJsonFile } from './files';
import { requireDesired } from './state';

/**
 * `tmkit plan --from-terraform plan.json`: the desired document of a Terraform plan's tmkit_* resources
 * (providers/terraform/src/tmkit/from-plan.ts), validated whole against the deployed state like any document,
 * and the masking of the values Terraform marks sensitive for everything printed.
 */
export function loadTerraformPlan(
  file: string,
  deployed: readonly DeployedProfile[],
): { document: Document; warnings: Diagnostic[]; mask: (s: string) => string } {
  const raw = readJsonFile(file, 'Terraform plan', 'write it with: terraform plan -out tfplan && terraform show -json tfplan > plan.json');
  const order = (name: string): string[] =>
    deployed.find((d) => d.profile.name.toLowerCase() === name.toLowerCase())?.profile.endpoints.map((e) => e.name) ?? [];
  const tf = documentFromTerraformPlan(raw, order);
  if (tf.problems.length > 0) {
    throw new CliError(`${file}: ${tf.problems.map((p) => `${p.address}: ${p.message}`).join('; ')}`);
  }
  const mask = (s: string): string => maskSensitive(s, tf.sensitive);
  const errOut = { write: (s: string): boolean => process.stderr.write(mask(s)) };
  return { ...requireDesired(tf.document, file, deployed, errOut, { after: ', then plan again' }), mask };
}
