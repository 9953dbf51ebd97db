/**
 * A minimal MaxMind DB (MMDB v2) writer for tests: an IPv6 tree (IPv4 under ::/96, as in GeoLite2), 24-bit
 * records, data types map / UTF-8 string / double / uint16 / uint32 / uint64 / array. Enough to build a tiny
 * city-level database in the GeoLite2-City record shape, read back with maxmind's real Reader.
 * Spec: https://maxmind.github.io/MaxMind-DB/
 */
type Value = string | number | Value[] | { [k: string]: Value } | { uint: number; bits: 16 | 32 | 64 };

function ctrl(type: number, size: number): Buffer {
  const head: number[] = [];
  let sizeBits: number;
  const extra: number[] = [];
  if (size < 29) sizeBits = size;
  else if (size < 29 + 256) {
    sizeBits = 29;
    extra.push(size - 29);
  } else if (size < 285 + 65536) {
    sizeBits = 30;
    const v = size - 285;
    extra.push(v >> 8, v & 0xff);
  } else {
    sizeBits = 31;
    const v = size - 65821;
    extra.push((v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff);
  }
  if (type <= 7) head.push((type << 5) | sizeBits);
  else head.push(sizeBits, type - 7);
  return Buffer.from([...head, ...extra]);
}

function uintBytes(n: bigint): Buffer {
  const out: number[] = [];
  while (n > 0n) {
    out.unshift(Number(n & 0xffn));
    n >>= 8n;
  }
  return Buffer.from(out);
}

export function encode(v: Value): Buffer {
  if (typeof v === 'string') {
    const b = Buffer.from(v, 'utf8');
    return Buffer.concat([ctrl(2, b.length), b]);
  }
  if (typeof v === 'number') {
    const b = Buffer.alloc(8);
    b.writeDoubleBE(v);
    return Buffer.concat([ctrl(3, 8), b]);
  }
  if (Array.isArray(v)) return Buffer.concat([ctrl(11, v.length), ...v.map(encode)]);
  if ('uint' in v && 'bits' in v && typeof v.uint === 'number') {
    const b = uintBytes(BigInt(v.uint));
    const type = v.bits === 16 ? 5 : v.bits === 32 ? 6 : 9;
    return Buffer.concat([ctrl(type, b.length), b]);
  }
  const entries = Object.entries(v as Record<string, Value>);
  return Buffer.concat([ctrl(7, entries.length), ...entries.flatMap(([k, val]) => [encode(k), encode(val)])]);
}

interface TrieNode {
  children: [TrieNode | number | undefined, TrieNode | number | undefined];
}

function bits(prefix: string): boolean[] {
  const [addr, lenText] = prefix.split('/') as [string, string];
  let bytes: number[];
  let len = Number(lenText);
  if (addr.includes(':')) {
    const [head, tail] = addr.split('::') as [string, string | undefined];
    const h = head ? head.split(':') : [];
    const t = tail ? tail.split(':') : [];
    const words = [...h, ...Array(8 - h.length - t.length).fill('0'), ...t].map((w) => parseInt(w, 16));
    bytes = words.flatMap((w) => [w >> 8, w & 0xff]);
  } else {
    bytes = [...Array(12).fill(0), ...addr.split('.').map(Number)];
    len += 96;
  }
  const out: boolean[] = [];
  for (let i = 0; i < len; i++) out.push(((bytes[i >> 3]! >> (7 - (i & 7))) & 1) === 1);
  return out;
}

/**
 * Builds an MMDB file: `records` maps non-overlapping prefixes (`8.8.8.0/24`, `2001:db8::/32`) to data.
 */
export function buildMmdb(records: Record<string, Value>, databaseType = 'tmkit-Test-City'): Buffer {
  const root: TrieNode = { children: [undefined, undefined] };
  const data: Buffer[] = [];
  let dataLen = 0;
  for (const [prefix, value] of Object.entries(records)) {
    const enc = encode(value);
    const offset = dataLen;
    data.push(enc);
    dataLen += enc.length;
    const path = bits(prefix);
    let node = root;
    for (let i = 0; i < path.length - 1; i++) {
      const side = path[i] ? 1 : 0;
      const next = node.children[side];
      if (typeof next === 'number') throw new Error(`${prefix} overlaps another prefix`);
      if (next === undefined) node.children[side] = { children: [undefined, undefined] };
      node = node.children[side] as TrieNode;
    }
    node.children[path[path.length - 1] ? 1 : 0] = -1 - offset; // data marker, resolved below
  }
  const nodes: TrieNode[] = [];
  const queue: TrieNode[] = [root];
  while (queue.length) {
    const n = queue.shift()!;
    nodes.push(n);
    for (const c of n.children) if (c !== undefined && typeof c !== 'number') queue.push(c);
  }
  const index = new Map(nodes.map((n, i) => [n, i]));
  const nodeCount = nodes.length;
  const tree = Buffer.alloc(nodeCount * 6);
  nodes.forEach((n, i) => {
    n.children.forEach((c, side) => {
      let rec: number;
      if (c === undefined) rec = nodeCount;
      else if (typeof c === 'number') rec = nodeCount + 16 + (-1 - c);
      else rec = index.get(c)!;
      tree.writeUIntBE(rec, i * 6 + side * 3, 3);
    });
  });
  const metadata = encode({
    node_count: { uint: nodeCount, bits: 32 },
    record_size: { uint: 24, bits: 16 },
    ip_version: { uint: 6, bits: 16 },
    database_type: databaseType,
    languages: ['en'],
    binary_format_major_version: { uint: 2, bits: 16 },
    binary_format_minor_version: { uint: 0, bits: 16 },
    build_epoch: { uint: 1_700_000_000, bits: 64 },
    description: { en: 'tmkit test database' },
  });
  return Buffer.concat([tree, Buffer.alloc(16), ...data, Buffer.from([0xab, 0xcd, 0xef]), Buffer.from('MaxMind.com', 'ascii'), metadata]);
}
