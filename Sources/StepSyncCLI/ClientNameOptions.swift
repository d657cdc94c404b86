import ArgumentParser

/// The database and the client's name, shared by `clients add NAME` and `clients revoke NAME`.
struct ClientNameOptions: ParsableArguments {
    /// `--database` (or `STEPSYNC_DATABASE_URL`), required here.
    @OptionGroup var database: DatabaseOptions

    /// The client's name.
    @Argument(help: "The client's name: 1…64 characters, no spaces (e.g. anna, anna-iphone).")
    var name: String

    func validate() throws { _ = try database.url() }
}
