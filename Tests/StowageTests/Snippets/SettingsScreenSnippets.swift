// The snippet of "A storage section for your settings screen" (SettingsScreen.md): a SwiftUI
// view, compiled where SwiftUI is (Apple platforms); on Linux the file is empty. The model it
// shows is run by ReadmeSnippets and StorageOverviewTests.

// snippet SettingsScreen/view
#if canImport(SwiftUI)
import SwiftUI
import Stowage

struct StorageSettingsView: View {
    @State private var storage: StorageOverview
    @State private var failure: StowageError?

    init(container: Container) {
        _storage = State(initialValue: StorageOverview(container: container))
    }

    var body: some View {
        Form {
            Section("On this device") {
                LabeledContent("Documents", value: storage.formattedSize(of: .documents))
                LabeledContent("Cache", value: storage.formattedSize(of: .caches))
                if let capacity = storage.capacity {
                    LabeledContent("Available", value: storage.formatted(capacity.availableForImportantUsageBytes))
                }
            }
            Section {
                Button(storage.clearing == .caches ? "Clearing…" : "Clear Cache", role: .destructive) {
                    Task {
                        do { try await storage.clear(.caches) } catch let error as StowageError { failure = error } catch {}
                    }
                }
                .disabled(storage.clearing != nil)
            } footer: {
                if let progress = storage.progress {
                    Text("\(progress.items) files, \(storage.formatted(progress.bytes))")
                }
            }
        }
        .task { try? await storage.refresh() }   // cancelled when the view goes away
        .refreshable { try? await storage.refresh() }
        .alert("Could not clear the cache", isPresented: .constant(failure != nil), presenting: failure) { _ in
            Button("OK") { failure = nil }
        } message: { error in
            Text(error.localizedDescription)
        }
    }
}
#endif
// end snippet
