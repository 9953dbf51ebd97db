import { documentSource, type DocumentSource } from '../../core/model/input';
import { readJsonFile } from './files';

export { profileNames, endpointCount } from '../../core/model/input';

/**
 * Reads a document file for `validate`/`plan`-like commands: a `tmkit/v1` document is used as is; Azure's
 * JSON for profiles (or an ARM template) is converted first (core/model/input.ts).
 */
export function loadDocument(file: string): DocumentSource {
  return documentSource(
    readJsonFile(file, 'document', 'pass a tmkit/v1 document (tmkit synth writes tmkit.out.json) or the JSON Azure prints for a profile'),
  );
}
