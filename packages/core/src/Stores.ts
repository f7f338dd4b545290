/**
 * The set of store ports a storage adapter provides, as one type.
 *
 * @since 0.1.0
 */
import type { AlertStore } from "./reports/AlertStore.ts"
import type { AuditStore } from "./audit/AuditLog.ts"
import type { BrandingStore } from "./sharing/TenantBranding.ts"
import type { CommentStore } from "./comments/CommentStore.ts"
import type { DashboardStore } from "./reports/DashboardStore.ts"
import type { DatasetStore } from "./datasets/DatasetStore.ts"
import type { DeliveryStore } from "./webhooks/DeliveryStore.ts"
import type { DirectoryStore } from "./directory/DirectoryStore.ts"
import type { ExportScheduleStore } from "./exports/ExportScheduleStore.ts"
import type { ExportStore } from "./exports/ExportStore.ts"
import type { GrantStore } from "./sharing/GrantStore.ts"
import type { IdempotencyStore } from "./platform/Idempotency.ts"
import type { InvitationStore } from "./sharing/InvitationStore.ts"
import type { ReportStore } from "./reports/ReportStore.ts"
import type { ServiceSecrets } from "./platform/ServiceSecrets.ts"
import type { SessionStore } from "./auth/SessionStore.ts"
import type { TenantStore } from "./tenancy/TenantStore.ts"
import type { Transactor } from "./platform/Transactor.ts"
import type { WebhookStore } from "./webhooks/WebhookStore.ts"
import type { WorkspaceStore } from "./tenancy/WorkspaceStore.ts"

/** Every store port: what `MemoryStores.layer`, `SqlStores.layerPg` and `SqlStores.layerPglite` provide. */
export type Stores =
  | TenantStore
  | WorkspaceStore
  | IdempotencyStore
  | ServiceSecrets
  | Transactor
  | WebhookStore
  | DeliveryStore
  | DirectoryStore
  | InvitationStore
  | DatasetStore
  | ReportStore
  | AlertStore
  | DashboardStore
  | AuditStore
  | GrantStore
  | ExportStore
  | ExportScheduleStore
  | CommentStore
  | SessionStore
  | BrandingStore
