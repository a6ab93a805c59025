/**
 * Type-level tests: each `@ts-expect-error` pins a compile-time guarantee. If a guarantee is lost the
 * line compiles, the directive is unused, and `tsc` (run first by `npm test`) fails.
 */
import type { Handlers, Input, Reply } from '../../src/http/contract.js';
import { handlers } from '../../src/http/handlers.js';
import type { JobDefinition, JobName } from '../../src/jobs/registry.js';
import { purgeStoreEventsJob } from '../../src/jobs/purge-store-events.job.js';
import type { ErrorCode } from '../../src/shared/errors.js';

// A handler may answer the statuses its operation declares...
export const declared: Reply<'getStoreEvent'>['status'] = 200;
// @ts-expect-error ...and no other: getStoreEvent declares no 201.
export const undeclared: Reply<'getStoreEvent'>['status'] = 201;

// A reply's body must have the declared shape for its status.
export const wrongBody: Reply<'getHealth'> = {
  status: 200,
  // @ts-expect-error status must be "ok" or "unavailable"
  body: { status: 'fine' },
};

// Every operation needs a handler: leaving one out does not compile.
const { getHealth: _omitted, ...withoutHealth } = handlers;
// @ts-expect-error getHealth is missing
export const incomplete: Handlers = withoutHealth;

// Secret operations get a project; platform operations have none.
export const projectOf = (input: Input<'listStoreEvents'>) => input.caller.project.id;
// @ts-expect-error a platform caller has no project
export const noProject = (input: Input<'createProject'>) => input.caller.project;

// Error codes are the closed enum of the spec's table.
// @ts-expect-error not a code of the table
export const unknownCode: ErrorCode = 'method_not_allowed';

// Every job name needs a definition with a handler.
// @ts-expect-error purge-idempotency-keys has no definition
export const jobsMissingOne: { [N in JobName]: JobDefinition<N> } = { 'purge-store-events': purgeStoreEventsJob };
