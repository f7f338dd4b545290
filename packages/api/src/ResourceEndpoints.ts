/**
 * The five endpoints every resource of a workspace has (datasets, reports,
 * dashboards, alerts, export schedules), written once and built from the
 * resource's schemas: `GET <path>?workspace_id=` lists a workspace's newest
 * first in the list envelope (docs/decisions/0003), `POST <path>` creates one
 * (idempotent, 201), `GET|PATCH|DELETE <path>/{id}` read, change and delete
 * one, each built by `Endpoints`. A group adds its own endpoints after them.
 *
 * @since 0.1.0
 */
import { Workspace } from "@analytics/core"
import { Schema } from "effect"
import type { HttpApiEndpoint } from "effect/http-api"
import { HttpApiGroup } from "effect/http-api"
import * as Endpoints from "./Endpoints.ts"
import * as Problems from "./Problems.ts"
import * as QueryParams from "./QueryParams.ts"

/** The path parameters of one resource: its id. */
export const idParams = { id: Schema.String }

/** A change of a resource (create, update): its payload, every problem it may answer, and its description. */
export interface Change<Payload extends Schema.Top, Error extends HttpApiEndpoint.ErrorConstraint> {
  readonly payload: Payload
  readonly error: Error
  readonly description?: string
}

/** The problems a delete answers unless the resource says more. */
type DefaultRemoveError = readonly [typeof Problems.Forbidden, typeof Problems.NotFound]

/** What the five endpoints are built from. */
export interface Resource<
  Path extends `/${string}`,
  Json extends Schema.Top,
  CreatePayload extends Schema.Top,
  CreateError extends HttpApiEndpoint.ErrorConstraint,
  UpdatePayload extends Schema.Top,
  UpdateError extends HttpApiEndpoint.ErrorConstraint,
  RemoveError extends HttpApiEndpoint.ErrorConstraint = DefaultRemoveError
> {
  /** Where the resource's collection is, e.g. `/v1/datasets`. */
  readonly path: Path
  /** A record as the API shows it. */
  readonly json: Json
  readonly create: Change<CreatePayload, CreateError>
  readonly update: Change<UpdatePayload, UpdateError>
  /** The delete endpoint's problems (default: forbidden, not found) and description, when it refuses more. */
  readonly remove?: { readonly error: RemoveError; readonly description?: string }
  /** The list endpoint's description, when it has one. */
  readonly listDescription?: string
}

/** A group named `name` with the resource's list, create, get, update and delete endpoints, in that order. */
export const group = <
  const Name extends string,
  const Path extends `/${string}`,
  Json extends Schema.Top,
  CreatePayload extends Schema.Top,
  const CreateError extends HttpApiEndpoint.ErrorConstraint,
  UpdatePayload extends Schema.Top,
  const UpdateError extends HttpApiEndpoint.ErrorConstraint,
  const RemoveError extends HttpApiEndpoint.ErrorConstraint = DefaultRemoveError
>(name: Name, resource: Resource<Path, Json, CreatePayload, CreateError, UpdatePayload, UpdateError, RemoveError>) =>
  HttpApiGroup.make(name)
    .add(Endpoints.list("list", resource.path, {
      query: { workspace_id: Workspace.WorkspaceId, ...QueryParams.page },
      item: resource.json,
      error: [...Problems.cursorProblems, Problems.Forbidden, Problems.NotFound],
      description: resource.listDescription
    }))
    .add(Endpoints.create("create", resource.path, {
      payload: resource.create.payload,
      success: resource.json,
      error: resource.create.error,
      description: resource.create.description
    }))
    .add(Endpoints.get("get", `${resource.path}/:id`, { params: idParams, success: resource.json, error: [Problems.Forbidden, Problems.NotFound] }))
    .add(Endpoints.update("update", `${resource.path}/:id`, {
      params: idParams,
      payload: resource.update.payload,
      success: resource.json,
      error: resource.update.error,
      description: resource.update.description
    }))
    .add(Endpoints.remove("delete", `${resource.path}/:id`, {
      params: idParams,
      error: resource.remove?.error ?? [Problems.Forbidden, Problems.NotFound] as unknown as RemoveError,
      description: resource.remove?.description
    }))
