/**
 * The set of store ports a storage adapter provides, as one type.
 *
 * @since 0.1.0
 */
import type { AlertStore } from "./AlertStore.ts"
import type { AuditStore } from "./AuditLog.ts"
import type { CommentStore } from "./CommentStore.ts"
import type { DashboardStore } from "./DashboardStore.ts"
import type { DatasetStore } from "./DatasetStore.ts"
import type { DeliveryStore } from "./DeliveryStore.ts"
import type { DirectoryStore } from "./DirectoryStore.ts"
import type { ExportScheduleStore } from "./ExportScheduleStore.ts"
import type { ExportStore } from "./ExportStore.ts"
import type { GrantStore } from "./GrantStore.ts"
import type { IdempotencyStore } from "./Idempotency.ts"
import type { InvitationStore } from "./InvitationStore.ts"
import type { ReportStore } from "./ReportStore.ts"
import type { ServiceSecrets } from "./ServiceSecrets.ts"
import type { TenantStore } from "./TenantStore.ts"
import type { Transactor } from "./Transactor.ts"
import type { WebhookStore } from "./WebhookStore.ts"
import type { WorkspaceStore } from "./WorkspaceStore.ts"

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
