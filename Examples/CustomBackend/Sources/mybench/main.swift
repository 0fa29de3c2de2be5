import BenchCLI
import CacheWorkbench

// The workbench's whole command line, with `mycache` registered beside the built-in
// backends: `mybench run --backend mycache,lru`, `mybench sweep …`, `mybench list`.
BenchCommandLine.main(extraBackends: [
    BackendKind(name: "mycache", summary: "an example of one's own: FIFO with a byte capacity (Examples/CustomBackend)") {
        MyCache(capacity: $0.capacityBytes)
    },
])
