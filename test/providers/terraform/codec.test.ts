/**
 * The DynamicValue codec against go-cty's wire facts (cty/msgpack): exact bytes for unknowns, refined
 * unknowns, nulls, numbers and dynamic values; schema-directed decoding of nested blocks and sets; the
 * JSON state form; and a round-trip property over random types and values.
 */
import fc from 'fast-check';
import { encode } from '@msgpack/msgpack';
import { CodecError, decodeJson, decodeMsgpack, encodeMsgpack } from '../../../providers/terraform/src/codec';
import { Dynamic, PreciseNumber, Unknown, UNKNOWN, type CtyType, type Value, type ValueObject } from '../../../providers/terraform/src/cty';
import { shapeOfBlock, shapeOfType, type Block } from '../../../providers/terraform/src/schema';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const bytes = (h: string): Buffer => Buffer.from(h.replace(/\s/g, ''), 'hex');
const S = shapeOfType;

describe('cty msgpack wire facts', () => {
  test('unknown is ext 0 with one zero byte (d4 00 00), for any type', () => {
    expect(hex(encodeMsgpack(UNKNOWN, S('string')))).toBe('d40000');
    expect(hex(encodeMsgpack(UNKNOWN, S(['list', 'number'])))).toBe('d40000');
    expect(decodeMsgpack(bytes('d40000'), S('string'))).toBe(UNKNOWN);
    expect(decodeMsgpack(bytes('d40000'), S('dynamic'))).toBe(UNKNOWN);
    // a zero-length extension is unknown too (cty accepts length ≤ 1 of any type code)
    expect(decodeMsgpack(bytes('c7 00 05'), S('bool'))).toBe(UNKNOWN);
  });

  test('refined unknowns (ext 12): decoded with their refinements and encoded back to the same bytes', () => {
    // not null
    const notNull = bytes('c7 03 0c 81 01 c2');
    const v = decodeMsgpack(notNull, S('string'));
    expect(v).toBeInstanceOf(Unknown);
    expect((v as Unknown).refinements).toEqual({ null: false });
    expect(hex(encodeMsgpack(v, S('string')))).toBe(hex(notNull));
    // not null, string prefix "ab"
    const prefixed = bytes('c7 07 0c 82 01 c2 02 a2 61 62');
    expect((decodeMsgpack(prefixed, S('string')) as Unknown).refinements).toEqual({ null: false, stringPrefix: 'ab' });
    expect(hex(encodeMsgpack(decodeMsgpack(prefixed, S('string')), S('string')))).toBe(hex(prefixed));
    // number in [5, 10)
    const bounded = bytes('c7 09 0c 82 03 92 05 c3 04 92 0a c2');
    expect((decodeMsgpack(bounded, S('number')) as Unknown).refinements).toEqual({
      numberMin: { value: 5, inclusive: true },
      numberMax: { value: 10, inclusive: false },
    });
    expect(hex(encodeMsgpack(decodeMsgpack(bounded, S('number')), S('number')))).toBe(hex(bounded));
    // a list of 1..3 elements
    const lengths = bytes('c7 05 0c 82 05 01 06 03');
    expect((decodeMsgpack(lengths, S(['list', 'string'])) as Unknown).refinements).toEqual({ lengthMin: 1, lengthMax: 3 });
    // refinements of a dynamic value are dropped, as cty does
    expect(decodeMsgpack(notNull, S('dynamic'))).toBe(UNKNOWN);
    // an unknown extension with a body is an error naming the path
    expect(() => decodeMsgpack(bytes('81 a1 61 c7 02 07 00 00'), S(['object', { a: 'string' }]))).toThrow(
      'a: unsupported msgpack extension 7',
    );
  });

  test('null is nil for every type; a null object stays null', () => {
    expect(hex(encodeMsgpack(null, S(['object', { a: 'string' }])))).toBe('c0');
    expect(decodeMsgpack(bytes('c0'), S(['map', 'string']))).toBeNull();
    expect(decodeMsgpack(bytes('c0'), S('dynamic'))).toBeNull();
  });

  test('numbers: compact ints, float64, decimal strings for what neither holds exactly', () => {
    expect(hex(encodeMsgpack(5, S('number')))).toBe('05');
    expect(hex(encodeMsgpack(-1, S('number')))).toBe('ff');
    expect(hex(encodeMsgpack(300, S('number')))).toBe('cd012c');
    expect(hex(encodeMsgpack(1.5, S('number')))).toBe('cb3ff8000000000000'); // float64, never float32
    expect(decodeMsgpack(bytes('cb3ff8000000000000'), S('number'))).toBe(1.5);
    expect(decodeMsgpack(bytes('ca3fc00000'), S('number'))).toBe(1.5); // float32 accepted
    // int64 beyond 2^53 → bigint, both ways
    expect(decodeMsgpack(bytes('d3 7fffffffffffffff'), S('number'))).toBe(9223372036854775807n);
    expect(hex(encodeMsgpack(9223372036854775807n, S('number')))).toBe('cf7fffffffffffffff'); // uint64, which cty reads too
    expect(hex(encodeMsgpack(-9223372036854775807n, S('number')))).toBe('d38000000000000001');
    expect(decodeMsgpack(bytes('cf ffffffffffffffff'), S('number'))).toBe(18446744073709551615n);
    // small ints sent as int64 come back as JS numbers
    expect(decodeMsgpack(bytes('d3 0000000000000007'), S('number'))).toBe(7);
    // cty writes big or inexact numbers as decimal strings
    const big = '123456789012345678901234567890';
    expect(decodeMsgpack(encode(big), S('number'))).toBe(BigInt(big));
    expect(hex(encodeMsgpack(BigInt(big), S('number')))).toBe(hex(encode(big)));
    const precise = decodeMsgpack(encode('0.1000000000000000055511151231257827'), S('number'));
    expect(precise).toEqual(new PreciseNumber('0.1000000000000000055511151231257827'));
    expect(hex(encodeMsgpack(precise, S('number')))).toBe(hex(encode('0.1000000000000000055511151231257827')));
    expect(decodeMsgpack(encode('2.5'), S('number'))).toBe(2.5);
    expect(() => decodeMsgpack(encode('abc'), S('number'))).toThrow('a number is required, got the string "abc"');
    expect(() => encodeMsgpack(NaN, S('number'))).toThrow(CodecError);
    expect(decodeMsgpack(encodeMsgpack(Infinity, S('number')), S('number'))).toBe(Infinity);
  });

  test('dynamic: [type JSON as bytes, value]; plain JS values get an inferred type', () => {
    expect(hex(encodeMsgpack(new Dynamic('string', 'hi'), S('dynamic')))).toBe(`92c408${Buffer.from('"string"').toString('hex')}a26869`);
    expect(decodeMsgpack(bytes(`92c408${Buffer.from('"string"').toString('hex')}a26869`), S('dynamic'))).toEqual(
      new Dynamic('string', 'hi'),
    );
    const v = decodeMsgpack(encodeMsgpack({ a: [1, 'x'] }, S('dynamic')), S('dynamic'));
    expect(v).toEqual(new Dynamic(['object', { a: ['tuple', ['number', 'string']] }], { a: [1, 'x'] }));
    const list = new Dynamic(['list', 'number'], [1, 2]);
    expect(decodeMsgpack(encodeMsgpack(list, S('dynamic')), S('dynamic'))).toEqual(list);
  });

  test('objects: every attribute present, names sorted; unknown attributes are an error with the path', () => {
    const t: CtyType = ['object', { b: 'string', a: 'number' }];
    expect(hex(encodeMsgpack({ b: 'x' }, S(t)))).toBe(hex(bytes('82 a1 61 c0 a1 62 a1 78')));
    expect(() => encodeMsgpack({ a: 1, c: 2 }, S(t))).toThrow('c: unsupported attribute (not in the schema)');
    expect(() => encodeMsgpack({ a: 'one' }, S(t))).toThrow('a: a number is required, got string "one"');
    expect(() => decodeMsgpack(encode({ a: { x: 1 } }), S(['object', { a: ['map', 'string'] }]))).toThrow(
      'a["x"]: a string is required, got number 1',
    );
  });
});

describe('schema-directed decoding', () => {
  const block: Block = {
    attributes: {
      name: { type: 'string', required: true },
      tags: { type: ['map', 'string'], optional: true },
      ports: { type: ['set', 'number'], optional: true },
      obj: { nested: { nesting: 'single', attributes: { x: { type: 'string', optional: true } } }, optional: true },
      objs: { nested: { nesting: 'set', attributes: { y: { type: 'number', optional: true } } }, optional: true },
    },
    blocks: {
      single: { nesting: 'single', block: { attributes: { a: { type: 'string', optional: true } } } },
      group: { nesting: 'group', block: { attributes: { g: { type: 'bool', optional: true } } } },
      list: {
        nesting: 'list',
        block: {
          attributes: { n: { type: 'string', required: true } },
          blocks: { inner: { nesting: 'set', block: { attributes: { w: { type: 'number', optional: true } } } } },
        },
      },
      set: { nesting: 'set', block: { attributes: { k: { type: 'string', required: true }, v: { type: 'string', optional: true } } } },
      map: { nesting: 'map', block: { attributes: { m: { type: 'number', optional: true } } } },
    },
  };
  const shape = shapeOfBlock(block);

  test('absent blocks and attributes decode to what Terraform means by unset', () => {
    expect(decodeMsgpack(encode({ name: 'n' }), shape)).toEqual({
      name: 'n',
      tags: null,
      ports: null,
      obj: null,
      objs: null,
      single: null,
      group: { g: null },
      list: [],
      set: [],
      map: {},
    });
  });

  test('encoding fills the same defaults, so a minimal handler value is a complete cty object', () => {
    const v = decodeMsgpack(encodeMsgpack({ name: 'n' }, shape), shape);
    expect(v).toEqual({
      name: 'n',
      tags: null,
      ports: null,
      obj: null,
      objs: null,
      single: null,
      group: { g: null },
      list: [],
      set: [],
      map: {},
    });
  });

  test('nested blocks, sets of objects, nested attribute types and maps of blocks', () => {
    const value: ValueObject = {
      name: 'n',
      tags: { env: 'dev' },
      ports: [80, 443],
      obj: { x: 'y' },
      objs: [{ y: 1 }, { y: 2 }],
      single: { a: 'A' },
      group: { g: true },
      list: [
        { n: 'first', inner: [{ w: 1 }, { w: null }] },
        { n: 'second', inner: [] },
      ],
      set: [
        { k: 'a', v: null },
        { k: 'b', v: 'B' },
      ],
      map: { one: { m: 1 }, two: { m: UNKNOWN } },
    };
    const round = decodeMsgpack(encodeMsgpack(value, shape), shape) as ValueObject;
    expect(round).toEqual(value);
    expect((round.map as ValueObject).two).toEqual({ m: UNKNOWN });
  });

  test('a wrong shape inside a block names the full path', () => {
    expect(() => decodeMsgpack(encode({ name: 'n', list: [{ n: 'a', inner: [{ w: 'heavy' }] }] }), shape)).toThrow(
      'list[0].inner[0].w: a number is required, got the string "heavy"',
    );
    expect(() => decodeMsgpack(encode({ name: 'n', set: { k: 'a' } }), shape)).toThrow('set: a set is required, got a map');
  });

  test('JSON state (RawState.json): same values, dynamic as {value, type}, missing attributes unset', () => {
    const s = shapeOfBlock({
      attributes: {
        a: { type: 'number', optional: true },
        d: { type: 'dynamic', optional: true },
        l: { type: ['list', 'string'], optional: true },
      },
      blocks: { b: { nesting: 'list', block: { attributes: { x: { type: 'string', optional: true } } } } },
    });
    expect(
      decodeJson('{"a": 1.25, "d": {"value": ["x", 2], "type": ["tuple", ["string", "number"]]}, "l": ["p"], "b": [{"x": "y"}]}', s),
    ).toEqual({
      a: 1.25,
      d: new Dynamic(['tuple', ['string', 'number']], ['x', 2]),
      l: ['p'],
      b: [{ x: 'y' }],
    });
    expect(decodeJson('{"a": null}', s)).toEqual({ a: null, d: null, l: null, b: [] });
    expect(() => decodeJson('{"zz": 1}', s)).toThrow('zz: unsupported attribute (not in the schema)');
    // Collections decode as in msgpack (one decoder for both): the same checks and messages, nested paths.
    expect(() => decodeJson('{"l": {"k": "p"}}', s)).toThrow('l: a list is required, got a map');
    expect(() => decodeJson('{"d": {"value": ["x"], "type": ["tuple", ["string", "number"]]}}', s)).toThrow(
      'd: a tuple of 2 is required, got an array of 1',
    );
    expect(() => decodeJson('{"b": [{"x": 1}]}', s)).toThrow('b[0].x: a string is required, got number 1');
  });
});

describe('round trip property: decode(encode(v, T), T) equals v', () => {
  const leafType = fc.constantFrom<CtyType>('string', 'number', 'bool', 'dynamic');
  const { type } = fc.letrec<{ type: CtyType }>((tie) => ({
    type: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leafType,
      fc.tuple(fc.constantFrom('list' as const, 'set' as const, 'map' as const), tie('type')).map(([k, t]) => [k, t] as CtyType),
      fc.array(tie('type'), { maxLength: 3 }).map((ts) => ['tuple', ts] as CtyType),
      fc.dictionary(fc.stringMatching(/^[a-z_][a-z0-9_]{0,6}$/), tie('type'), { maxKeys: 3 }).map((o) => ['object', o] as CtyType),
    ),
  }));
  const key = fc.string({ maxLength: 5 }).filter((k) => k !== '__proto__');
  const number = fc.oneof(
    fc.integer(),
    fc.double({ noNaN: true }).filter((d) => !Object.is(d, -0)),
    fc.bigInt({ min: -(2n ** 63n), max: 2n ** 64n - 1n }).filter((b) => !Number.isSafeInteger(Number(b)) || BigInt(Number(b)) !== b),
  );
  const unknown = fc.oneof(fc.constant(UNKNOWN), fc.constant(new Unknown({ null: false })));
  function valueArb(t: CtyType, depth = 0): fc.Arbitrary<Value> {
    void depth;
    const known = ((): fc.Arbitrary<Value> => {
      if (t === 'string') return fc.string({ maxLength: 8 });
      if (t === 'bool') return fc.boolean();
      if (t === 'number') return number;
      if (t === 'dynamic')
        return fc.oneof(
          fc.string({ maxLength: 4 }).map((s) => new Dynamic('string', s)),
          fc.array(fc.integer(), { maxLength: 3 }).map((a) => new Dynamic(['list', 'number'], a)),
        );
      switch (t[0]) {
        case 'list':
        case 'set':
          return fc.array(valueArb(t[1], depth + 1), { maxLength: 3 });
        case 'map':
          return fc.dictionary(key, valueArb(t[1], depth + 1), { maxKeys: 3 }) as fc.Arbitrary<Value>;
        case 'tuple':
          return fc.tuple(...t[1].map((e) => valueArb(e, depth + 1))) as fc.Arbitrary<Value>;
        case 'object':
          return fc.record(Object.fromEntries(Object.entries(t[1]).map(([k, e]) => [k, valueArb(e, depth + 1)]))) as fc.Arbitrary<Value>;
      }
    })();
    // cty drops refinements of dynamic values, so only the plain unknown goes there
    return fc.oneof(
      { weight: 6, arbitrary: known },
      { weight: 1, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: t === 'dynamic' ? fc.constant(UNKNOWN) : unknown },
    );
  }

  test('random types and values (nulls and unknowns anywhere)', () => {
    fc.assert(
      fc.property(
        type.chain((t) => fc.tuple(fc.constant(t), valueArb(t))),
        ([t, v]) => {
          const shape = S(t);
          expect(decodeMsgpack(encodeMsgpack(v, shape), shape)).toEqual(v);
        },
      ),
      { numRuns: 400 },
    );
  });
});
