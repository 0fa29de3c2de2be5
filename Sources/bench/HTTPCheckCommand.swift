import ArgumentParser
import CacheWorkbench

/// `bench http-check HAR`: the HTTP model's predictions against a browser's repeat view.
struct HTTPCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "http-check",
        abstract: "Check the HTTP model against a real browser cache: a WebPageTest first + repeat view HAR.",
        discussion: """
            For every URL of each run's first view, predicts under each profile (rfc9111, apple, \
            corelibs) what the browser cache does on the repeat view: fresh, revalidate or fetch. \
            Compares with the repeat view: absent = served from the cache or not asked (a cache hit \
            leaves no entry; "not asked" is named only on evidence: a cache-busting query or \
            no-store), 304 = revalidated, any other status = fetched. Prints a confusion table per \
            profile and every disagreement with its reason.
            Example:
              bench http-check webpagetest.har
            """)

    @Argument(help: ArgumentHelp("A HAR with first and repeat views (WebPageTest pages with _run and _cached).", valueName: "file"))
    var file: String

    func run() throws {
        try reportingErrors {
            try StandardOutput.write(try HTTPCheck.run(path: file).text)
        }
    }
}
