/**
 * The admin dashboard (docs/issuer.md "Admin dashboard"): the page at /admin
 * and its API at /admin/api/*, both on the issuer's own origin. One
 * aggregator of live figures and one failed-login limiter per server.
 */
import type { FastifyInstance } from 'fastify';
import { adminTokenSource } from '../../services/admin-credential.js';
import { DashboardAggregator } from '../../services/dashboard.js';
import { ADMIN_FAILURE_LIMIT, ADMIN_FAILURE_WINDOW_MS, FailureLimiter } from '../../services/failed-authentications.js';
import { postgresFailureCounter } from '../../store/postgres-rate-limit.js';
import type { SqlDatabase } from '../../store/sql.js';
import adminApiRoutes, { ADMIN_API_PREFIX } from './api.js';
import adminPageRoutes from './page.js';

export interface AdminRoutesOptions {
  database: SqlDatabase;
  /** Accept this admin token instead of the one stored in the data dir (serve --admin-token-file). */
  adminToken?: string | undefined;
  /** The certificate fingerprint setup codes made here pin (self-signed HTTPS), else null. */
  setupCertPin: string | null;
  /** The built page; default dist/dashboard of this package. */
  distDir?: string | undefined;
  /** The data dir's signing keys, for the staff badges made on the page (docs/issuer.md "Admin dashboard"). */
  keysDir: string;
}

export default async function adminRoutes(app: FastifyInstance, options: AdminRoutesOptions): Promise<void> {
  await app.register(adminPageRoutes, options.distDir === undefined ? {} : { distDir: options.distDir });
  await app.register(adminApiRoutes, {
    prefix: ADMIN_API_PREFIX,
    database: options.database,
    tokenSource: adminTokenSource(options.database.read, options.adminToken),
    // Several serving processes on one PostgreSQL database share the count (docs/issuer.md "Failed authentications").
    failureLimiter:
      options.database.dialect === 'postgres'
        ? postgresFailureCounter(options.database, ADMIN_FAILURE_LIMIT, ADMIN_FAILURE_WINDOW_MS)
        : new FailureLimiter(ADMIN_FAILURE_LIMIT, ADMIN_FAILURE_WINDOW_MS),
    aggregator: new DashboardAggregator(options.database.read),
    setupCertPin: options.setupCertPin,
    keysDir: options.keysDir,
  });
}
