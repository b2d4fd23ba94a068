package dev.tollgate.spring.directory;

/** Data written once, after the migrations and before the first load (dev mode's demo data). */
@FunctionalInterface
public interface DirectorySeed {

    void seed(DirectoryRepository repository);
}
