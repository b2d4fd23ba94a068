package dev.tollgate.spring.localstate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalStateDirectoryTest {

    @TempDir
    Path temporary;

    @Test
    void writesCreateTheFolderOwnerOnlyAndReplaceTheFileWhole() throws IOException {
        LocalStateDirectory state = new LocalStateDirectory(temporary.resolve("nested/state"));
        state.write("f", out -> out.write("first".getBytes(StandardCharsets.UTF_8)));
        state.write("f", out -> out.write("second".getBytes(StandardCharsets.UTF_8)));

        assertThat(Files.readString(state.file("f"))).isEqualTo("second");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(state.file("f")))).isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(state.directory()))).isEqualTo("rwx------");
        try (var files = Files.list(state.directory())) {
            assertThat(files).containsExactly(state.file("f"));
        }
    }

    @Test
    void aWriteThatFailsHalfWayLeavesTheOldFileAndNoTemporaryFile() throws IOException {
        LocalStateDirectory state = new LocalStateDirectory(temporary);
        state.write("f", out -> out.write("old".getBytes(StandardCharsets.UTF_8)));

        assertThatThrownBy(() -> state.write("f", out -> {
            out.write("half of the n".getBytes(StandardCharsets.UTF_8));
            throw new IOException("disk full");
        })).hasMessage("disk full");

        assertThat(Files.readString(state.file("f"))).isEqualTo("old");
        try (var files = Files.list(temporary)) {
            assertThat(files).containsExactly(state.file("f"));
        }
    }
}
