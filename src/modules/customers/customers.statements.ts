import type pg from 'pg';
import { preparedStatement, selectList, type Columns } from '../../db/prepared.js';
import { sqlList } from '../../shared/sql-list.js';
import { insertWithEvent } from '../store-events/index.js';
import type { CustomerFields } from './customers.mappers.js';
import type { CustomerRow } from './customers.row.js';

/**
 * The customer operations measured against the bare baseline (bench/README.md), as prepared statements
 * (src/db/prepared.ts): the read by id, the list and the create with its store event. The services use them outside
 * transactions and fall back to Prisma inside one.
 */

const FIELDS: Columns<CustomerFields> = {
  id: 'id',
  email: 'email',
  firstName: 'first_name',
  lastName: 'last_name',
  phone: 'phone',
  company: 'company',
  status: 'status',
  orderCount: 'order_count',
  totalSpent: 'total_spent',
  firstOrderAt: 'first_order_at',
  lastOrderAt: 'last_order_at',
  tags: 'tags',
  metadata: 'metadata',
  activePriceKey: 'active_price_key',
  locale: 'locale',
  taxNumber: 'tax_number',
  taxNumberType: 'tax_number_type',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
};

const byId = preparedStatement<CustomerFields>(
  'customer_live_by_id',
  `SELECT ${selectList(FIELDS)} FROM customers WHERE id = $1 AND project_id = $2 AND deleted_at IS NULL`,
);

/** The project's live customer with this id, or undefined. */
export async function liveCustomerById(
  pool: pg.Pool,
  projectId: string,
  id: string,
): Promise<CustomerFields | undefined> {
  return (await byId(pool, [id, projectId]))[0];
}

/** Pages of the list of customers (listCustomers without a search or group filter): the shown fields and the name sort's key. */
export const customerList = sqlList<CustomerFields & { sortName: string }>('customers', 'customers', {
  ...FIELDS,
  sortName: 'sort_name',
});

// What a create writes: the fields shown, less those the database keeps (order figures, creation time), plus
// the stored-only ones.
const {
  orderCount: _orders,
  totalSpent: _spent,
  firstOrderAt: _first,
  lastOrderAt: _last,
  createdAt: _created,
  ...shownAndWritten
} = FIELDS;

/** Inserts a customer (customerRow) and its customer.created store event in one statement. */
export const insertCustomerWithEvent = insertWithEvent<CustomerRow, CustomerFields>(
  'customer_insert_with_event',
  'customers',
  {
    ...shownAndWritten,
    projectId: 'project_id',
    emailNormalized: 'email_normalized',
    sortName: 'sort_name',
    passwordHash: 'password_hash',
  },
  FIELDS,
  ['metadata'],
);
