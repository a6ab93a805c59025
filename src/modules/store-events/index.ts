/**
 * What other areas may use of the audit log: recording events inside their transactions (or in a write's own
 * statement when no subscriber listens), and which catalogue types no operation emits yet.
 */
export {
  recordChange,
  recordEvent,
  changedFields,
  storeEventRow,
  type EventType,
  type FieldChanges,
  type StoreEventInput,
} from './store-events.recorder.js';
export { eventHasSubscribers } from './store-events.subscribers.js';
export { insertEvents, insertEventsSteps, insertWithEvent } from './store-events.statement.js';
export { redactChangesOf } from './store-events.sql.js';
export { NOT_YET_EMITTED, notYetEmitted } from './event-catalogue.js';
