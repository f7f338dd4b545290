import { operationLimitsSuite } from "@analytics/adapter-http/testing"
import { RateLimitStore } from "@analytics/core"

operationLimitsSuite("memory", RateLimitStore.RateLimitStore.layerMemory)
