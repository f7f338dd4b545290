/**
 * The console's words in English, by key: every string a screen shows is
 * here, so a translation is another file of the same keys. `{name}` marks
 * a parameter `msg` fills in.
 *
 * @since 0.1.0
 */
export const en = {
  "app.skip": "Skip to content",
  "app.nav": "Main",
  "app.nav.workspaces": "Workspaces",
  "app.signOut": "Sign out",
  "app.signedInAs": "Signed in as {name}",
  "app.loading": "Loading…",

  "problem.network": "The service could not be reached",
  "problem.generic": "Something went wrong",
  "problem.action.connection": "Check your connection, then try again.",
  "problem.action.signIn": "Sign in again to continue.",
  "problem.action.reload": "Reload the page and try again.",
  "problem.action.askAdmin": "Ask a tenant admin for access.",
  "problem.action.checkAddress": "Check the address, or go back to the workspaces.",
  "problem.action.fix": "Correct what is marked and send it again.",
  "problem.action.wait": "Wait {seconds} seconds, then try again.",
  "problem.action.waitBit": "Wait a moment, then try again.",
  "problem.action.later": "Try again in a moment; if it keeps happening, tell your administrator.",
  "problem.retry": "Try again",

  "signIn.title": "Sign in",
  "signIn.intro": "We send you a link to sign in. It works once, for 15 minutes.",
  "signIn.email": "E-mail address",
  "signIn.send": "Send me a link",
  "signIn.sending": "Sending…",
  "signIn.checkMail": "Check your mail",
  "signIn.checkMail.detail": "If {email} belongs to an account, a sign-in link is on its way. Open it in this browser.",
  "signIn.another": "Use another address",
  "signIn.token.summary": "Sign in with an API token (admins)",
  "signIn.token.label": "API token",
  "signIn.token.hint": "A tenant admin's token. It is sent once and never kept in this browser.",
  "signIn.token.submit": "Sign in with the token",
  "signIn.link.opening": "Signing you in…",
  "signIn.embedded": "Sign in through {name} to continue.",
  "signIn.embedded.link": "Go to sign-in",
  "signIn.off": "Sign-in to the console is turned off here. Use the API with a token instead.",

  "invitation.title": "Accept your invitation",
  "invitation.intro": "Choose the name others see, then you are signed in.",
  "invitation.name": "Your name",
  "invitation.submit": "Accept and sign in",
  "invitation.noToken": "This address holds no invitation. Open the link from your invitation e-mail again.",

  "workspaces.title": "Workspaces",
  "workspaces.empty": "No workspaces yet.",
  "workspaces.empty.admin": "Create the first one below.",
  "workspaces.more": "Load more",
  "workspaces.create.title": "New workspace",
  "workspaces.create.name": "Name",
  "workspaces.create.description": "Description (optional)",
  "workspaces.create.submit": "Create workspace",
  "workspaces.created": "Workspace {name} created.",

  "workspace.title": "Workspace",
  "workspace.reports": "Reports",
  "workspace.dashboards": "Dashboards",
  "workspace.reports.empty": "No reports in this workspace yet.",
  "workspace.dashboards.empty": "No dashboards in this workspace yet.",
  "workspace.back": "All workspaces",

  "comingNext.title": "Coming next",
  "comingNext.back": "Back to the workspace",
  "comingNext.detail": "Reports and dashboards open here in the next version of the console. Until then, share them by link from the API.",

  "notFound.title": "Nothing here",
  "notFound.detail": "This address does not match any page of the console.",
  "notFound.home": "Go to the workspaces"
} as const
