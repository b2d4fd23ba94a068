package dev.tollgate.spring.localstate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Arrays;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalStateDirectoryTest {

    private static final LocalStateKey KEY = LocalStateKey.derivedFrom("this deployment's secret", "test");

    @TempDir
    Path temporary;

    @Test
    void writesCreateTheFolderOwnerOnlyAndReplaceTheFileWhole() throws IOException {
        LocalStateDirectory state = new LocalStateDirectory(temporary.resolve("nested/state"), KEY);
        state.write("f", out -> out.write("first".getBytes(StandardCharsets.UTF_8)));
        state.write("f", out -> out.write("second".getBytes(StandardCharsets.UTF_8)));

        assertThat(read(state, "f")).isEqualTo("second");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(state.file("f")))).isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(state.directory()))).isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(temporary.resolve("nested"))))
                .isEqualTo("rwx------");
        try (var files = Files.list(state.directory())) {
            assertThat(files).containsExactly(state.file("f"));
        }
    }

    @Test
    void aWriteThatFailsHalfWayLeavesTheOldFileAndNoTemporaryFile() throws IOException {
        LocalStateDirectory state = new LocalStateDirectory(temporary, KEY);
        state.write("f", out -> out.write("old".getBytes(StandardCharsets.UTF_8)));

        assertThatThrownBy(() -> state.write("f", out -> {
            out.write("half of the n".getBytes(StandardCharsets.UTF_8));
            throw new IOException("disk full");
        })).hasMessage("disk full");

        assertThat(read(state, "f")).isEqualTo("old");
        try (var files = Files.list(temporary)) {
            assertThat(files).containsExactly(state.file("f"));
        }
    }

    @Test
    void aFolderWritableByGroupOrOthersIsRefused() throws IOException {
        Path shared = Files.createDirectory(temporary.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThatThrownBy(() -> new LocalStateDirectory(shared, KEY))
                .isInstanceOf(UnsafeLocalStateException.class)
                .hasMessage("tollgate.local-state.directory " + shared
                        + " is writable by group or others (rwxrwxrwx); make it owner-only (chmod 700)");

        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwx---"));
        assertThatThrownBy(() -> new LocalStateDirectory(shared, KEY)).isInstanceOf(UnsafeLocalStateException.class);

        // Readable by others but writable by its owner only: nobody else can plant a file in it.
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertThat(new LocalStateDirectory(shared, KEY).directory()).isEqualTo(shared);
    }

    @Test
    void aFolderThatOthersMayWriteOnceStartedIsNeitherWrittenNorRead() throws IOException {
        LocalStateDirectory state = new LocalStateDirectory(temporary, KEY);
        state.write("f", out -> out.write(1));
        Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("rwxrwxrwx"));

        // An IOException, as for a full disk: its writers log it and go on.
        assertThatThrownBy(() -> state.write("f", out -> out.write(2))).isExactlyInstanceOf(IOException.class)
                .hasMessageContaining("is writable by group or others");
        assertThatThrownBy(() -> state.read("f")).isInstanceOf(RefusedFileException.class)
                .hasMessageContaining("is writable by group or others");
        Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("rwx------"));
    }

    @Test
    void aFolderOwnedByAnotherUserIsRefused() throws IOException {
        Path theirs = Files.createDirectory(temporary.resolve("theirs"));
        Files.setPosixFilePermissions(theirs, PosixFilePermissions.fromString("rwx------"));
        UserPrincipal nobody = otherUser(theirs);

        assertThatThrownBy(() -> new LocalStateDirectory(theirs, KEY))
                .isInstanceOf(UnsafeLocalStateException.class)
                .hasMessageContaining("tollgate.local-state.directory " + theirs + " is owned by " + nobody.getName()
                        + ", not by " + LocalStateDirectory.currentUser().getName());
    }

    @Test
    void theCheckComparesWithTheUserGiven() throws IOException {
        // Whoever runs the test: the folder is its own, so it is another's to a gateway run by "nobody".
        Path mine = Files.createDirectory(temporary.resolve("mine"));
        UserPrincipal nobody = temporary.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
        Assumptions.assumeFalse(Files.getOwner(mine).equals(nobody));
        assertThatThrownBy(() -> new LocalStateDirectory(mine, KEY, nobody))
                .isInstanceOf(UnsafeLocalStateException.class)
                .hasMessageContaining("is owned by " + Files.getOwner(mine).getName() + ", not by nobody");
    }

    @Test
    void aFileOfAnotherUserOrWritableByOthersIsRefusedWhenRead() throws IOException {
        LocalStateDirectory state = new LocalStateDirectory(temporary, KEY);
        state.write("f", out -> out.write("planted".getBytes(StandardCharsets.UTF_8)));

        Files.setPosixFilePermissions(state.file("f"), PosixFilePermissions.fromString("rw-rw-rw-"));
        assertThatThrownBy(() -> state.read("f")).isInstanceOf(RefusedFileException.class)
                .hasMessage("is writable by group or others (rw-rw-rw-); make it owner-only (chmod 600)");

        Files.setPosixFilePermissions(state.file("f"), PosixFilePermissions.fromString("rw-------"));
        UserPrincipal nobody = otherUser(state.file("f"));
        assertThatThrownBy(() -> state.read("f")).isInstanceOf(RefusedFileException.class)
                .hasMessageContaining("is owned by " + nobody.getName());
        assertThat(state.refusals("f")).isEqualTo(2);
    }

    @Test
    void aSymbolicLinkIsRefused() throws IOException {
        LocalStateDirectory state = new LocalStateDirectory(temporary.resolve("state"), KEY);
        Path elsewhere = temporary.resolve("elsewhere");
        new LocalStateDirectory(elsewhere, KEY).write("f", out -> out.write(1));
        state.write("g", out -> out.write(2));
        Files.createSymbolicLink(state.file("f"), elsewhere.resolve("f"));

        assertThatThrownBy(() -> state.read("f")).isInstanceOf(RefusedFileException.class)
                .hasMessage("is not a regular file but a symbolic link");
    }

    @Test
    void aFileWrittenWithAnotherSecretOrUntaggedOrAlteredIsRefused() throws IOException {
        LocalStateDirectory state = new LocalStateDirectory(temporary, KEY);
        LocalStateDirectory otherDeployment =
                new LocalStateDirectory(temporary, LocalStateKey.derivedFrom("another deployment's secret", "test"));
        otherDeployment.write("f", out -> out.write("forged, at limit 10^9".getBytes(StandardCharsets.UTF_8)));
        assertThatThrownBy(() -> state.read("f")).isInstanceOf(RefusedFileException.class)
                .hasMessageStartingWith("its authentication tag does not match: it was not written by this deployment");

        // Content that passed as another file's does not pass as this one's.
        state.write("g", out -> out.write("mine".getBytes(StandardCharsets.UTF_8)));
        Files.copy(state.file("g"), state.file("f"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        assertThatThrownBy(() -> state.read("f")).isInstanceOf(RefusedFileException.class);

        byte[] altered = Files.readAllBytes(state.file("g"));
        altered[0] ^= 1;
        Files.write(state.file("g"), altered);
        assertThatThrownBy(() -> state.read("g")).isInstanceOf(RefusedFileException.class);

        Files.write(state.file("g"), Arrays.copyOf(altered, 10));
        assertThatThrownBy(() -> state.read("g")).isInstanceOf(RefusedFileException.class)
                .hasMessage("it is too short to be a Tollgate file (10 bytes)");
        assertThat(state.refusals("f")).isEqualTo(2);
        assertThat(state.refusals("g")).isEqualTo(2);
        assertThat(state.read("none")).isEmpty();
    }

    private static String read(LocalStateDirectory state, String name) throws IOException {
        try (InputStream in = state.read(name).orElseThrow()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** Gives {@code path} to the user "nobody"; only root can, so the test is skipped for anyone else. */
    private static UserPrincipal otherUser(Path path) throws IOException {
        UserPrincipal nobody = path.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
        Assumptions.assumeFalse(nobody.equals(LocalStateDirectory.currentUser()), "the tests run as nobody");
        try {
            Files.setOwner(path, nobody);
        } catch (IOException e) {
            Assumptions.abort("only root can give a file to another user: " + e);
        }
        return nobody;
    }
}
