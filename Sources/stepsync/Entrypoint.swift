import StepSyncCLI

@main
enum Entrypoint {
    static func main() async {
        await StepSyncCommand.main()
    }
}
