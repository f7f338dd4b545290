import { operationLimitsSuite } from "@analytics/testing/http"
import { RateLimitStore } from "@analytics/core"

operationLimitsSuite("memory", RateLimitStore.RateLimitStore.layerMemory)
