import { SetMetadata } from '@nestjs/common';

export const PUBLIC_ROUTE = 'ioa:public-route';
export const ADMIN_ONLY = 'ioa:admin-only';

/** A route anyone may call without credentials (liveness and readiness probes). */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

/** A route for platform administrators only (dead letters, account management). */
export const AdminOnly = () => SetMetadata(ADMIN_ONLY, true);
