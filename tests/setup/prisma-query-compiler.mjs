/**
 * Prisma's query compiler (the WebAssembly glue module Prisma's client loads), with the plans it compiles kept
 * for the whole jest worker instead of one test file.
 *
 * jest gives every test file a fresh module registry, so each file's Prisma client starts with an empty plan
 * cache, parses the schema in a new compiler and compiles every query shape again (about 0.3 s of CPU per
 * integration file). The compiler is a pure function of the schema, the connection's provider and the query's
 * parameterized form, so this module (jest.config.mjs maps the glue's name here) answers a shape compiled
 * before in this worker with a copy of that plan, built in the asking file's own realm (a plan made in another
 * file's realm would fail its `instanceof` checks). A shape not seen before is compiled by the real compiler,
 * created on the first such shape. Everything else is the real glue module.
 *
 * TEST_CHECK_PLAN_CACHE=1 checks each kept plan once per worker: the first time another file asks for its shape,
 * the shape is compiled afresh (by that file's own compiler) and the file fails when the kept plan differs.
 */
import { createHash } from 'node:crypto';
// A built-in module's object is the same in every test file of a worker (unlike globalThis or process).
import worker from 'node:v8';
import * as glue from '../../node_modules/@prisma/client/runtime/query_compiler_small_bg.postgresql.mjs';

export * from '../../node_modules/@prisma/client/runtime/query_compiler_small_bg.postgresql.mjs';

const PLANS = Symbol.for('commerce-api.tests.prisma-query-plans');
/** @type {Map<string, Map<string, unknown>>} plans by compiler configuration, then by request */
const plansByCompiler = (worker[PLANS] ??= new Map());
/** @type {WeakMap<Map<string, unknown>, Set<string>>} by configuration's plans, the keys checked (TEST_CHECK_PLAN_CACHE) */
const CHECKED = Symbol.for('commerce-api.tests.prisma-query-plans-checked');
const checkedByPlans = (worker[CHECKED] ??= new WeakMap());
const checking = process.env.TEST_CHECK_PLAN_CACHE === '1';

/** A deep copy of a plan made of this realm's objects (plans hold objects, arrays, maps, dates, bytes and primitives). */
function copy(value) {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(copy);
  const kind = Object.prototype.toString.call(value);
  if (kind === '[object Map]') return new Map([...value].map(([key, item]) => [copy(key), copy(item)]));
  if (kind === '[object Date]') return new Date(value.getTime());
  if (kind === '[object Uint8Array]') return new Uint8Array(value);
  const prototype = Object.getPrototypeOf(value);
  if (kind !== '[object Object]' || (prototype !== null && Object.getPrototypeOf(prototype) !== null))
    throw new Error(`tests/setup/prisma-query-compiler.mjs: a query plan holds a ${kind} it cannot copy`);
  const copied = {};
  for (const [key, item] of Object.entries(value)) copied[key] = copy(item);
  return copied;
}

/** Whether two plans are the same data (the check of TEST_CHECK_PLAN_CACHE). */
function same(a, b) {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  const kind = Object.prototype.toString.call(a);
  if (kind !== Object.prototype.toString.call(b)) return false;
  if (kind === '[object Date]') return a.getTime() === b.getTime();
  const entries = (value) =>
    kind === '[object Map]' ? [...value] : Array.isArray(value) ? [...value.entries()] : Object.entries(value);
  const [left, right] = [entries(a), entries(b)];
  return (
    left.length === right.length && left.every(([key, item], i) => same(key, right[i][0]) && same(item, right[i][1]))
  );
}

/** The glue's QueryCompiler, with the worker's plans in front of it. */
export class QueryCompiler {
  #params;
  #plans;
  #compiler;
  /** The keys this file's compiler compiled (a check compares plans of two files). */
  #own = new Set();

  constructor(params) {
    this.#params = params;
    const configuration = createHash('sha256').update(JSON.stringify(params)).digest('hex');
    let plans = plansByCompiler.get(configuration);
    if (!plans) plansByCompiler.set(configuration, (plans = new Map()));
    this.#plans = plans;
  }

  /** The real compiler, made when a plan is first missing (its constructor parses the whole schema). */
  #real() {
    return (this.#compiler ??= new glue.QueryCompiler(this.#params));
  }

  #planned(key, compile) {
    const kept = this.#plans.get(key);
    if (kept === undefined) {
      const plan = compile();
      this.#plans.set(key, copy(plan));
      this.#own.add(key);
      return plan;
    }
    if (!checking || this.#own.has(key)) return copy(kept);
    let checked = checkedByPlans.get(this.#plans);
    if (!checked) checkedByPlans.set(this.#plans, (checked = new Set()));
    if (checked.has(key)) return copy(kept);
    const plan = compile();
    if (!same(kept, plan))
      throw new Error(`tests/setup/prisma-query-compiler.mjs: a kept plan differs from a fresh one for ${key}`);
    checked.add(key);
    return plan;
  }

  compile(request) {
    return this.#planned(`one\0${request}`, () => this.#real().compile(request));
  }

  compileBatch(request) {
    return this.#planned(`batch\0${request}`, () => this.#real().compileBatch(request));
  }

  free() {
    this.#compiler?.free();
    this.#compiler = undefined;
  }

  [Symbol.dispose]() {
    this.free();
  }
}
