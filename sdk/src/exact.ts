/**
 * Exact request bodies. openapi-fetch infers a call's options from the argument, so TypeScript's excess
 * property check never runs on them and `{ currency: 'USD', customer_idd: 'x' }` would compile; these types
 * turn every property the contract does not declare (at any depth, in objects and arrays) into `never`.
 */

/** Every key of any member of a union (`keyof (A | B)` gives only the shared ones). */
type KeysOfUnion<T> = T extends unknown ? keyof T : never;

/** The type of `K` in whichever union members declare it. */
type PropertyOf<Shape, K> = Shape extends unknown ? (K extends keyof Shape ? Shape[K] : never) : never;

/** `T` with every property that `Shape` (the contract's type) does not declare turned into `never`. */
export type Exact<T, Shape> = unknown extends Shape
  ? T // an open value (metadata, a metafield value): anything goes
  : T extends readonly unknown[]
    ? NonNullable<Shape> extends readonly (infer ShapeItem)[]
      ? { [I in keyof T]: Exact<T[I], ShapeItem> }
      : T
    : T extends object
      ? NonNullable<Shape> extends readonly unknown[]
        ? T
        : {
            [K in keyof T]: K extends KeysOfUnion<NonNullable<Shape>>
              ? Exact<T[K], PropertyOf<NonNullable<Shape>, K>>
              : never;
          }
      : T;

/** The request options with their `body` checked against the contract's body type. */
export type ExactBody<Init, Allowed> = Init extends { body?: infer Body }
  ? Allowed extends { body?: infer AllowedBody }
    ? Init & { body?: Exact<Body, AllowedBody> }
    : Init
  : Init;
