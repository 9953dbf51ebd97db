import type { Diagnostic } from '../../core/diagnostics';
import type { Profile } from '../../core/model/types';
import { validateProfile } from '../../core/validate';

/**
 * Validates one profile written through the API against the other stored profiles (cross-profile rules:
 * nested targets exist, no cycle, unique relativeName). Pure; called inside the store's write.
 */
export type ProfileValidator = (input: unknown, context: readonly Profile[]) => Diagnostic[];

/**
 * The validator the API uses: every rule of src/core/validate, with the other stored profiles as context
 * (nested targets exist, no cycle or too-deep nesting, unique relativeName).
 */
export const defaultValidator: ProfileValidator = (input, context) => validateProfile(input, { context });
