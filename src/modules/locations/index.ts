/** What other areas (and the demo catalog) may use of locations: creating a location. */
export { createLocation } from './locations.service.js';
