// swift-tools-version:6.0
import Foundation
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

/// Where commitsctl finds GCC's C++ runtime as an archive, and nothing else: a link
/// to Debian 12's `libstdc++.a`. The Swift runtime's own link arguments name
/// `-lstdc++`; the linker searches every `-L` directory in order and takes the first
/// `libstdc++.so` or `libstdc++.a` it meets, so this directory, named before GCC's,
/// makes it the archive. Linked into the image, the C++ runtime costs the loader
/// nothing at start: as a shared library it had 1,700 symbols to bind to itself
/// at every start, and its pages to map (issue #30 goal 4: `commitsctl show` 4.3 →
/// 3.8 ms, `--version` 2.5 → 2.2 ms; docs/OPERATIONS.md). Where the archive is
/// elsewhere (another GCC), the link is dangling and the shared library is used.
let staticLibraries = Context.packageDirectory + "/Sources/commitsctl/StaticLibraries"
let linksCxxRuntimeStatically = FileManager.default.fileExists(atPath: staticLibraries + "/libstdc++.a")

let package = Package(
    name: "commits-mirror",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "commitsctl", targets: ["commitsctl"]),
        .executable(name: "github-sim", targets: ["github-sim"]),
        .executable(name: "commitsd", targets: ["commitsd"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    ],
    targets: [
        // MARK: - C libraries: libcurl loaded on first use (Sources/CCurl), the others linked
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread")]),
        // libpq, loaded on first use like libcurl (Sources/CPostgreSQL): its header from libpq-dev.
        .target(name: "CPostgreSQL", linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread")]),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // The SQLite store's row-by-row message test (`message_contains`), a SQL function in C.
        .target(name: "CMessageSearch", dependencies: ["CSQLite"]),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // glibc's malloc tuning (malloc.h), for the executables' start.
        .systemLibrary(name: "CMalloc"),

        // MARK: - Thin wrappers
        .target(name: "Curl", dependencies: ["CCurl"], swiftSettings: swiftSettings),
        .target(name: "SQLite", dependencies: ["CSQLite"], swiftSettings: swiftSettings),
        .target(name: "PostgreSQL", dependencies: ["CPostgreSQL"], swiftSettings: swiftSettings),
        // SHA-1 for git object ids: shared by MirrorCore and github-sim, which must not depend on each other;
        // BoringSSL's (swift-crypto), which both link already.
        .target(
            name: "GitHash", dependencies: [.product(name: "Crypto", package: "swift-crypto")], swiftSettings: swiftSettings),

        // MARK: - The product
        // The core knows no store: it speaks the store protocols, and the drivers below open them.
        // It links the SQLite wrapper only for the git pack's scratch index (Git/PackCommitIndex.swift) and
        // the SQLite errors StoreError carries.
        .target(
            name: "MirrorCore",
            dependencies: [
                "Curl", "SQLite", "CZlib", "CMalloc", "GitHash",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // The stores, one target per backend: drivers for MirrorCore's store protocols (StoreDrivers).
        // What both stores keep alike, written once over one SQL session (SQLSession): no database linked.
        .target(name: "MirrorBookkeeping", dependencies: ["MirrorCore"], swiftSettings: swiftSettings),
        .target(
            name: "MirrorSQLite", dependencies: ["MirrorCore", "MirrorBookkeeping", "SQLite", "CMessageSearch"],
            swiftSettings: swiftSettings),
        .target(
            name: "MirrorPostgreSQL", dependencies: ["MirrorCore", "MirrorBookkeeping", "PostgreSQL"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "commitsctl",
            dependencies: [
                "MirrorCore", "MirrorSQLite", "MirrorPostgreSQL", "PostgreSQL",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            exclude: ["StaticLibraries"],
            swiftSettings: swiftSettings,
            // A position-dependent executable: the loader then has no relocations to apply to the image, where
            // a PIE's 92,000 cost a fifth of a query's whole-process time (docs/OPERATIONS.md weighs the address
            // randomisation this gives up; commitsd, which serves the network for months, stays a PIE). Release
            // builds only: a debug build's references to the shared Swift runtime's protected functions make the
            // loader warn. The C++ runtime linked in too (`staticLibraries`), by lld: gold cannot link the
            // archive's exception code into a build with the shared Swift runtime (a SystemTap note naming a
            // section it discarded), where only BoringSSL's few references to it are taken from the archive.
            linkerSettings: [
                .unsafeFlags(
                    ["-Xclang-linker", "-no-pie"]
                        + (linksCxxRuntimeStatically ? ["-use-ld=lld", "-L", staticLibraries] : []),
                    .when(platforms: [.linux], configuration: .release))
            ]
        ),

        // MARK: - The service
        .executableTarget(
            name: "commitsd",
            dependencies: [
                "MirrorCore", "MirrorSQLite", "MirrorPostgreSQL",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: - The GitHub imitation
        .target(
            name: "GitHubSim",
            dependencies: [
                "CZlib", "GitHash",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "github-sim",
            dependencies: [
                "GitHubSim",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: - Benchmarks (not a product: builds synthetic stores for Benchmarks/*.sh)
        .executableTarget(
            name: "mirror-bench",
            dependencies: ["MirrorCore", "MirrorSQLite", "MirrorPostgreSQL", "GitHubSim"],
            path: "Benchmarks/mirror-bench",
            swiftSettings: swiftSettings
        ),

        // MARK: - Tests
        // Paths, temporary directories and process runners every test target shares.
        .target(
            name: "MirrorTestSupport",
            dependencies: [
                "Curl", "SQLite", "PostgreSQL", "GitHubSim", "MirrorCore", "MirrorSQLite", "MirrorPostgreSQL",
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "Tests/MirrorTestSupport", swiftSettings: swiftSettings),
        .testTarget(name: "CurlTests", dependencies: ["MirrorTestSupport", "Curl", "GitHubSim"], swiftSettings: swiftSettings),
        .testTarget(name: "GitHashTests", dependencies: ["MirrorTestSupport", "GitHash"], swiftSettings: swiftSettings),
        .testTarget(name: "SQLiteTests", dependencies: ["MirrorTestSupport", "SQLite"], swiftSettings: swiftSettings),
        .testTarget(name: "PostgreSQLTests", dependencies: ["MirrorTestSupport", "PostgreSQL"], swiftSettings: swiftSettings),
        .testTarget(
            name: "MirrorCoreTests",
            dependencies: [
                "MirrorTestSupport", "MirrorCore", "MirrorSQLite", "MirrorPostgreSQL", "PostgreSQL", "GitHubSim", "SQLite", "GitHash",
                "CZlib",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MirrorSQLiteTests",
            dependencies: ["MirrorTestSupport", "MirrorCore", "MirrorSQLite", "SQLite", "GitHubSim"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MirrorPostgreSQLTests",
            dependencies: ["MirrorTestSupport", "MirrorCore", "MirrorPostgreSQL", "PostgreSQL"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GitHubSimTests", dependencies: ["MirrorTestSupport", "GitHubSim", "GitHash", "Curl"], swiftSettings: swiftSettings),
        .testTarget(
            name: "CommitsctlTests",
            dependencies: [
                "MirrorTestSupport", "commitsctl", "github-sim", "GitHubSim", "MirrorCore", "MirrorSQLite", "SQLite", "PostgreSQL", "Curl",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CommitsdTests",
            dependencies: [
                "MirrorTestSupport", "commitsd", "commitsctl", "github-sim", "GitHubSim", "MirrorCore", "MirrorSQLite", "SQLite",
                "PostgreSQL", "Curl",
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
