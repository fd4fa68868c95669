import MirrorCore
import MirrorModel

extension MirrorMetrics.StoreWriteFailure {
    /// The reason a sync's error gives for not writing the store, whichever backend
    /// holds it; `nil` when the error is not the store's (GitHub, the network, a lost lease).
    init?(ofSyncError error: any Error) {
        switch error {
        case let error as StoreError:
            self.init(error)
        case let error as any StoreFailureReporting:
            self.init(error.storeFailure)
        default:
            return nil
        }
    }
}
