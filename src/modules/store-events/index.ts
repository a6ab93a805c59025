/** What other areas may use of the audit log: recording events inside their transactions. */
export { recordChange, recordEvent, changedFields, type EventType, type FieldChanges } from './store-events.recorder.js';
