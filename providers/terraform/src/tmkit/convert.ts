/**
 * Terraform values ↔ tmkit's ARM-named model, and tmkit diagnostics → Terraform diagnostics with attribute
 * paths. Pure (no client): the resources (./resources) and `tmkit plan --from-terraform` (./from-plan) use it.
 * One module per direction: ./to-model, ./to-state and ./tf-diagnostics; this one exports them together.
 *
 * From Terraform: unknown values ("known after apply") are left out of the ARM input and their ARM paths are
 * returned, so validation of a partly unknown configuration drops what it cannot judge yet.
 * To Terraform: the state is built from what the runtime stored, keeping the configuration's spelling
 * where the runtime normalized an equivalent value (`West Europe` stored as `westeurope`, `200` as
 * `200-200`), and an empty list where the configuration had none as null, so a plan always agrees with
 * what apply stores.
 */
export {
  blockType,
  type Converted,
  DEFAULT_TERRAFORM_STACK,
  endpointBlocks,
  endpointFromTf,
  first,
  num,
  type Obj,
  parseStatusRange,
  profileFromTf,
  profileSettingsFromTf,
} from './to-model';
export { endpointState, inlineEndpointsState, profileState, sameLocation } from './to-state';
export { tfDiagnostics, tfPath } from './tf-diagnostics';
