import { storeContract } from "@analytics/core/testing"
import { MemoryStores } from "@analytics/adapter-memory"

storeContract("memory", MemoryStores.layer)
