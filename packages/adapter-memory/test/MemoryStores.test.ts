import { storeContract } from "@analytics/testing"
import { MemoryStores } from "@analytics/adapter-memory"

storeContract("memory", MemoryStores.layer)
