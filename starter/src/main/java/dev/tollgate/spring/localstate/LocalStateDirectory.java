package dev.tollgate.spring.localstate;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The folder where an instance keeps what it must remember across restarts
 * ({@code tollgate.local-state.directory}): the last directory snapshot and the last instance count
 * learnt. Nothing in it is needed while PostgreSQL and Redis answer; it lets an instance that starts
 * while they do not begin from what it last knew instead of from nothing.
 *
 * <p>Files are written whole or not at all (see {@link #write}) and readable by their owner only
 * where the file system has POSIX permissions.
 */
public final class LocalStateDirectory {

    private final Path directory;

    public LocalStateDirectory(Path directory) {
        this.directory = directory.toAbsolutePath().normalize();
    }

    public Path directory() {
        return directory;
    }

    /** The path of the file {@code name} in this folder (it may not exist). */
    public Path file(String name) {
        return directory.resolve(name);
    }

    /** Writes the content of a file, to a stream that the caller must not close. */
    @FunctionalInterface
    public interface Content {
        void writeTo(OutputStream out) throws IOException;
    }

    /**
     * Replaces the file {@code name} atomically: the content goes to a new temporary file in the same
     * folder, is forced to disk, and the temporary file is renamed over the old one. A reader (or a
     * restart after a crash at any point) sees the old file or the new one, whole, never a mix; a
     * failed write leaves the old file as it was and no temporary file behind.
     */
    public void write(String name, Content content) throws IOException {
        createDirectory();
        Path target = file(name);
        Path temporary = Files.createTempFile(directory, "." + name + ".", ".tmp");
        boolean moved = false;
        try {
            ownerOnly(temporary, "rw-------");
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                OutputStream out = new BufferedOutputStream(Channels.newOutputStream(channel), 1 << 16);
                content.writeTo(out);
                out.flush();
                channel.force(true);
            }
            try {
                Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("the file system of " + directory + " cannot rename files atomically", e);
            }
            moved = true;
        } finally {
            if (!moved) {
                Files.deleteIfExists(temporary);
            }
        }
    }

    private void createDirectory() throws IOException {
        if (Files.isDirectory(directory)) {
            return;
        }
        try {
            Files.createDirectories(directory);
            ownerOnly(directory, "rwx------");
        } catch (FileAlreadyExistsException e) {
            throw new IOException(directory + " exists and is not a folder", e);
        }
    }

    private static void ownerOnly(Path path, String permissions) throws IOException {
        if (path.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(permissions));
        }
    }
}
