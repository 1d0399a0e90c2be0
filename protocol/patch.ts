import { Type, type Static } from '@sinclair/typebox';
import { JsonAny } from './json';

export const PatchPut = Type.Object(
  { op: Type.Literal('put'), key: Type.String(), value: JsonAny },
  { $id: 'PatchPut', title: 'PatchPut' },
);
export const PatchDel = Type.Object({ op: Type.Literal('del'), key: Type.String() }, { $id: 'PatchDel', title: 'PatchDel' });
export const PatchClear = Type.Object({ op: Type.Literal('clear') }, { $id: 'PatchClear', title: 'PatchClear' });

/** A patch operation: put with key and value, del with key, or clear (SPEC.md §3, §5). */
export type PatchPut = Static<typeof PatchPut>;
export type PatchDel = Static<typeof PatchDel>;
export type PatchClear = Static<typeof PatchClear>;
export type PatchOperation = PatchPut | PatchDel | PatchClear;

/**
 * A patch operation (SPEC.md §3, §5). `oneOf` with a `discriminator` on `op`
 * (understood by ajv and OpenAPI tools; plain JSON Schema validators ignore it
 * and still get a correct oneOf).
 */
export const PatchOperation = Type.Unsafe<PatchOperation>({
  $id: 'PatchOperation',
  title: 'PatchOperation',
  type: 'object',
  discriminator: { propertyName: 'op' },
  oneOf: [PatchPut, PatchDel, PatchClear],
});

export const Patch = Type.Array(PatchOperation, { $id: 'Patch', title: 'Patch' });
export type Patch = Static<typeof Patch>;
