/** What other areas may use of customer groups: the members filter of the customer list. */
export { groupMembersWhere } from './membership.js';
