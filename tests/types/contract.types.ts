/**
 * Type-level tests: each `@ts-expect-error` pins a compile-time guarantee. If a guarantee is lost the
 * line compiles, the directive is unused, and `tsc` (run first by `npm test`) fails.
 */
import type { AreaHandlers, Handlers, Input, Reply } from '../../src/shared/contract.js';
import { storeEventHandlers } from '../../src/modules/store-events/store-events.handlers.js';
import { handlers } from '../../src/http/handlers.js';
import type { JobDefinition } from '../../src/shared/job-definition.js';
import type { JobName } from '../../src/shared/job-types.js';
import { purgeStoreEventsJob } from '../../src/modules/store-events/purge-store-events.job.js';
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

// Secret operations get a service context with a project; platform operations have none.
export const projectOf = (input: Input<'listStoreEvents'>) => input.ctx.project.id;
// @ts-expect-error a platform operation has no service context
export const noProject = (input: Input<'createProject'>) => input.ctx.project;

// An area's handler map must cover every operation of its tag...
const { getStoreEvent: _omittedFromArea, ...storeEventsWithoutOne } = storeEventHandlers;
// @ts-expect-error getStoreEvent is missing from the store-events area
export const incompleteArea: AreaHandlers<'store-events'> = storeEventsWithoutOne;
// ...and may not take operations of another tag.
// @ts-expect-error getHealth belongs to the service tag
export const foreignOperation: AreaHandlers<'store-events'> = { ...storeEventHandlers, getHealth: handlers.getHealth };

// Error codes are the closed enum of openapi.yaml's `Error` schema.
// @ts-expect-error not a code of the table
export const unknownCode: ErrorCode = 'method_not_allowed';

// Every job name needs a definition with a handler.
// @ts-expect-error purge-idempotency-keys has no definition
export const jobsMissingOne: { [N in JobName]: JobDefinition<N> } = { 'purge-store-events': purgeStoreEventsJob };
