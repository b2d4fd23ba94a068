package dev.tollgate.spring.directory.database;

/** Data written once, after the migrations and before the first load (dev mode's demo data). */
@FunctionalInterface
public interface DirectorySeed {

    void seed(DirectoryRepository repository);
}
