package dev.tollgate.spring.localstate;

import java.io.BufferedOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.MessageDigest;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import javax.crypto.Mac;

/**
 * The folder where an instance keeps what it must remember across restarts
 * ({@code tollgate.local-state.directory}): the last directory snapshot and the last instance count
 * learnt. Nothing in it is needed while PostgreSQL and Redis answer; it lets an instance that starts
 * while they do not begin from what it last knew instead of from nothing.
 *
 * <p>What is read from it decides which API keys are let in and at which limits, so it is trusted
 * only as far as it is private and authenticated:
 * <ul>
 *   <li>the folder is created owner-only (0700), and one that exists, or a file in it, that another
 *       user owns or that group or others may write is refused ({@link UnsafeLocalStateException}):
 *       anyone who could write it could plant what the instance serves;</li>
 *   <li>each file ends with an HMAC-SHA256 of its name and content, keyed by the deployment's secret
 *       ({@link LocalStateKey}); a file whose tag does not match (another deployment's, the format
 *       before tags, edited, truncated) is refused when read ({@link RefusedFileException}).</li>
 * </ul>
 *
 * <p>Files are written whole or not at all (see {@link #write}). Where the file system has no POSIX
 * permissions (Windows), only the tag is checked.
 */
public final class LocalStateDirectory {

    /** Bytes of the HMAC-SHA256 tag at the end of every file. */
    public static final int TAG_BYTES = 32;

    private static final Set<PosixFilePermission> GROUP_OR_OTHERS_WRITE =
            Set.of(PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);

    private final Path directory;
    private final LocalStateKey key;
    private final UserPrincipal owner;
    private final Map<String, LongAdder> refusals = new ConcurrentHashMap<>();

    /**
     * The folder {@code directory}, whose files are tagged with {@code key} and must belong to
     * {@code owner} (the user this process runs as, see {@link #currentUser}).
     *
     * @throws UnsafeLocalStateException if the folder exists but is not private to {@code owner}
     */
    public LocalStateDirectory(Path directory, LocalStateKey key, UserPrincipal owner) {
        this.directory = directory.toAbsolutePath().normalize();
        this.key = key;
        this.owner = owner;
        String unsafe;
        try {
            unsafe = unsafeFolder();
        } catch (IOException e) {
            unsafe = "tollgate.local-state.directory " + this.directory + " cannot be checked (" + e + ")";
        }
        if (unsafe != null) {
            throw new UnsafeLocalStateException(unsafe);
        }
    }

    /** The folder {@code directory} of the user this process runs as. */
    public LocalStateDirectory(Path directory, LocalStateKey key) {
        this(directory, key, currentUser());
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
     * Replaces the file {@code name} atomically with {@code content} and its tag: the bytes go to a new
     * temporary file in the same folder, are forced to disk, and the temporary file is renamed over the
     * old one. A reader (or a restart after a crash at any point) sees the old file or the new one,
     * whole, never a mix; a failed write leaves the old file as it was and no temporary file behind.
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
                OutputStream file = new BufferedOutputStream(Channels.newOutputStream(channel), 1 << 16);
                Mac mac = key.mac(name);
                OutputStream tagged = new FilterOutputStream(file) {
                    @Override
                    public void write(int b) throws IOException {
                        mac.update((byte) b);
                        out.write(b);
                    }

                    @Override
                    public void write(byte[] b, int off, int len) throws IOException {
                        mac.update(b, off, len);
                        out.write(b, off, len);
                    }

                    @Override
                    public void close() {
                        // the caller must not close the file; it is closed below
                    }
                };
                content.writeTo(tagged);
                file.write(mac.doFinal());
                file.flush();
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

    /**
     * The content of the file {@code name} (without its tag), once the folder and the file have been
     * found private and the tag right; empty if there is no such file. The stream must be closed.
     *
     * @throws RefusedFileException if the file must not be used, saying why (counted in {@link #refusals})
     */
    public Optional<InputStream> read(String name) throws IOException {
        try {
            return verified(name);
        } catch (RefusedFileException e) {
            refused(name);
            throw e;
        }
    }

    private Optional<InputStream> verified(String name) throws IOException {
        Path path = file(name);
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        String unsafeFolder = unsafeFolder();
        if (unsafeFolder != null) {
            throw new RefusedFileException(unsafeFolder);
        }
        String unsafe = unsafe(path, false);
        if (unsafe != null) {
            throw new RefusedFileException(unsafe);
        }
        FileChannel channel;
        try {
            channel = FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        try {
            long size = channel.size();
            if (size < TAG_BYTES) {
                throw new RefusedFileException("it is too short to be a Tollgate file (" + size + " bytes)");
            }
            long length = size - TAG_BYTES;
            Mac mac = key.mac(name);
            ByteBuffer buffer = ByteBuffer.allocate(1 << 16);
            long remaining = length;
            while (remaining > 0) {
                buffer.clear().limit((int) Math.min(buffer.capacity(), remaining));
                int n = channel.read(buffer);
                if (n < 0) {
                    throw new RefusedFileException("it was cut short while being read");
                }
                mac.update(buffer.array(), 0, n);
                remaining -= n;
            }
            ByteBuffer tag = ByteBuffer.allocate(TAG_BYTES);
            while (tag.hasRemaining() && channel.read(tag) >= 0) {
                // read the whole tag
            }
            if (!MessageDigest.isEqual(mac.doFinal(), tag.array())) {
                throw new RefusedFileException("its authentication tag does not match: it was not written by this"
                        + " deployment (another tollgate.local-state.secret or database password), by an older"
                        + " Tollgate, or it was altered");
            }
            channel.position(0);
            return Optional.of(new LimitedInputStream(Channels.newInputStream(channel), length));
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** Counts a refusal of the file {@code name} by its reader (wrong format, another database). */
    public void refused(String name) {
        refusals.computeIfAbsent(name, n -> new LongAdder()).increment();
    }

    /** Refusals of the file {@code name} since start. */
    public long refusals(String name) {
        LongAdder count = refusals.get(name);
        return count == null ? 0 : count.sum();
    }

    private void createDirectory() throws IOException {
        if (Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS)) {
            String unsafe = unsafeFolder();
            if (unsafe != null) {
                throw new IOException(unsafe);
            }
            return;
        }
        try {
            if (directory.getFileSystem().supportedFileAttributeViews().contains("posix")) {
                // Every folder created on the way is owner-only too (~/.tollgate, ~/.tollgate/local-state).
                Files.createDirectories(directory,
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } else {
                Files.createDirectories(directory);
            }
            ownerOnly(directory, "rwx------");
        } catch (FileAlreadyExistsException e) {
            throw new IOException(directory + " exists and is not a folder", e);
        }
    }

    /** Why the folder must not be used (it exists and is not private to the owner), or null. */
    private String unsafeFolder() throws IOException {
        if (!Files.exists(directory, LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        String unsafe = unsafe(directory, true);
        return unsafe == null ? null : "tollgate.local-state.directory " + directory + " " + unsafe;
    }

    /** Why {@code path} must not be trusted, or null: not of its kind, another's, or writable by others. */
    private String unsafe(Path path, boolean folder) throws IOException {
        if (!path.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            return null;
        }
        PosixFileAttributes attributes = Files.readAttributes(path, PosixFileAttributes.class,
                LinkOption.NOFOLLOW_LINKS);
        if (folder ? !attributes.isDirectory() : !attributes.isRegularFile()) {
            return "is not a " + (folder ? "folder" : "regular file") + (attributes.isSymbolicLink()
                    ? " but a symbolic link" : "");
        }
        if (!attributes.owner().equals(owner)) {
            return "is owned by " + attributes.owner().getName() + ", not by " + owner.getName()
                    + " (the user this gateway runs as)";
        }
        Set<PosixFilePermission> permissions = attributes.permissions();
        if (permissions.stream().anyMatch(GROUP_OR_OTHERS_WRITE::contains)) {
            return "is writable by group or others (" + PosixFilePermissions.toString(permissions)
                    + "); make it owner-only (chmod " + (folder ? "700" : "600") + ")";
        }
        return null;
    }

    /**
     * The user this process runs as: by {@code user.name}, or, where that name is not known to the
     * system (a container started with a numeric user of no name), the owner of a file it creates.
     */
    public static UserPrincipal currentUser() {
        try {
            try {
                return FileSystems.getDefault().getUserPrincipalLookupService()
                        .lookupPrincipalByName(System.getProperty("user.name"));
            } catch (IOException | UnsupportedOperationException e) {
                Path probe = Files.createTempFile("tollgate-owner", ".tmp");
                try {
                    return Files.getOwner(probe);
                } finally {
                    Files.deleteIfExists(probe);
                }
            }
        } catch (IOException e) {
            throw new UnsafeLocalStateException("the user this gateway runs as cannot be told (" + e + ")");
        }
    }

    private static void ownerOnly(Path path, String permissions) throws IOException {
        if (path.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(permissions));
        }
    }

    /** The first {@code limit} bytes of a stream: the content of a file without its tag. */
    private static final class LimitedInputStream extends InputStream {
        private final InputStream in;
        private long remaining;

        LimitedInputStream(InputStream in, long limit) {
            this.in = in;
            this.remaining = limit;
        }

        @Override
        public int read() throws IOException {
            if (remaining <= 0) {
                return -1;
            }
            int b = in.read();
            if (b >= 0) {
                remaining--;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (remaining <= 0) {
                return -1;
            }
            int n = in.read(b, off, (int) Math.min(len, remaining));
            if (n > 0) {
                remaining -= n;
            }
            return n;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
