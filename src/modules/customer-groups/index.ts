/** What other areas may use of customer groups: the members filter of the customer list, and the handlers. */
export { groupMembersWhere } from './membership.js';
export { customerGroupHandlers } from './customer-groups.handlers.js';
