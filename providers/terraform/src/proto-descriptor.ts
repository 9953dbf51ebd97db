/**
 * Builds the JSON descriptor (protobufjs's reflection JSON) of the .proto files in ../proto. The server
 * loads that JSON with protobufjs/light at start-up instead of parsing .proto text, which keeps the
 * plugin's start-up low. `npm run proto` writes it; a test checks the committed file matches the .proto files.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as protobuf from 'protobufjs';

export const PROTO_DIR = join(__dirname, '../proto');
export const DESCRIPTOR_FILE = join(PROTO_DIR, 'descriptor.json');

export function buildDescriptor(dir = PROTO_DIR): unknown {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => join(dir, target.replace(/^.*\//, ''));
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.proto'))
    .sort();
  root.loadSync(
    files.map((f) => join(dir, f)),
    { keepCase: true },
  );
  root.resolveAll();
  return root.toJSON({ keepComments: false });
}

/** The file's text: stable key order, one-space indent, trailing newline. */
export function descriptorText(dir = PROTO_DIR): string {
  return `${JSON.stringify(buildDescriptor(dir), null, 1)}\n`;
}

if (require.main === module) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require('node:fs').writeFileSync(DESCRIPTOR_FILE, descriptorText());
  process.stderr.write(`wrote ${DESCRIPTOR_FILE}\n`);
}
