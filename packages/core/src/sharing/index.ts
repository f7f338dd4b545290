/**
 * Who may see what: grants, invitations, share tokens and shared views, the
 * subjects grants point at, and the one authorization policy.
 *
 * @since 0.1.0
 */
export * as Access from "./Access.ts"
export * as EmbedPreviews from "./EmbedPreviews.ts"
export * as Grant from "./Grant.ts"
export * as GrantStore from "./GrantStore.ts"
export * as Grants from "./Grants.ts"
export * as Invitation from "./Invitation.ts"
export * as InvitationStore from "./InvitationStore.ts"
export * as Invitations from "./Invitations.ts"
export * as LockedFilters from "./LockedFilters.ts"
export * as MemberViews from "./MemberViews.ts"
export * as Policy from "./Policy.ts"
export * as ShareTokens from "./ShareTokens.ts"
export * as SharedSubjects from "./SharedSubjects.ts"
export * as SharedViews from "./SharedViews.ts"
export * as Subjects from "./Subjects.ts"
export * as TenantBranding from "./TenantBranding.ts"
export * as Watermarks from "./Watermarks.ts"
