/**
 * What identity providers send over SCIM, captured from their documented
 * test runs: the bodies both core's SCIM parser and the HTTP routes are
 * tested with.
 *
 * @since 0.1.0
 */

/** Okta's create-user body (its SCIM 2.0 test suite's user). */
export const oktaUser = {
  schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
  userName: "test.user@okta.local",
  name: { givenName: "Test", familyName: "User" },
  emails: [{ primary: true, value: "test.user@okta.local", type: "work" }],
  displayName: "Test User",
  locale: "en-US",
  externalId: "00ujl29u0le5T6Aj10h7",
  groups: [],
  password: "1mz050nq",
  active: true
}
