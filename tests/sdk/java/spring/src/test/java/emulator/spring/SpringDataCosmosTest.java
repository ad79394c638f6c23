package emulator.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.azure.cosmos.CosmosException;
import com.azure.spring.data.cosmos.core.CosmosTemplate;
import com.azure.spring.data.cosmos.core.query.CosmosPageRequest;
import emulator.harness.Emulator;
import emulator.harness.Ids;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.dao.DataAccessException;
import org.springframework.data.domain.Page;
import org.springframework.data.domain.PageRequest;
import org.springframework.data.domain.Pageable;
import org.springframework.data.domain.Sort;

/**
 * Spring Data Cosmos (azure-spring-data-cosmos, with the azure-cosmos it pins) against the emulator:
 * a repository with derived queries, paging and sorting, an annotated query, auditing
 * (@EnableCosmosAuditing: @CreatedDate, @LastModifiedDate, @CreatedBy, @LastModifiedBy) and optimistic
 * locking (@Version on _etag: a save with a stale etag fails with 412).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SpringDataCosmosTest {
    private AnnotationConfigApplicationContext context;
    private PersonRepository repo;
    private CosmosTemplate template;

    static final List<Person> PEOPLE = List.of(
        new Person("1", "Ada", "Lovelace", 36, "London"),
        new Person("2", "Alan", "Turing", 41, "London"),
        new Person("3", "Grace", "Hopper", 85, "New York"),
        new Person("4", "Edsger", "Dijkstra", 72, "Austin"),
        new Person("5", "Barbara", "Liskov", 84, "Boston"),
        new Person("6", "Anna", "Lovelace", 12, "London"),
        new Person("7", "Byron", "Lovelace", 36, "Paris"),
        new Person("8", "Donald", "Knuth", 86, "Stanford"));

    @BeforeAll
    void start() {
        Emulator.shared();
        SpringConfig.database = Ids.uid("springdb");
        context = new AnnotationConfigApplicationContext(SpringConfig.class);
        repo = context.getBean(PersonRepository.class);
        template = context.getBean(CosmosTemplate.class);
    }

    @AfterAll
    void stop() {
        try {
            context.getBean(com.azure.cosmos.CosmosAsyncClient.class).getDatabase(SpringConfig.database).delete().block();
        } catch (RuntimeException ignored) {
            // the emulator stops anyway
        }
        if (context != null) context.close();
    }

    @BeforeEach
    void seed() {
        SpringConfig.CURRENT_USER.set("alice");
        repo.deleteAll();
        for (Person p : PEOPLE) repo.save(new Person(p.getId(), p.getFirstName(), p.getLastName(), p.getAge(), p.getCity()));
    }

    private static List<String> ids(Iterable<Person> people) {
        return StreamSupport.stream(people.spliterator(), false).map(Person::getId).collect(Collectors.toList());
    }

    private static List<String> sortedIds(Iterable<Person> people) {
        return ids(people).stream().sorted().collect(Collectors.toList());
    }

    @Test
    void crudThroughTheRepository() {
        assertEquals(8, repo.count());
        Optional<Person> ada = repo.findById("1", new com.azure.cosmos.models.PartitionKey("Lovelace"));
        assertTrue(ada.isPresent());
        assertEquals("Ada", ada.get().getFirstName());
        assertTrue(repo.findById("1").isPresent(), "a cross-partition find by id");
        assertFalse(repo.findById("nope").isPresent());
        Person p = ada.get();
        p.setCity("Marylebone");
        Person saved = repo.save(p);
        assertEquals("Marylebone", saved.getCity());
        assertEquals("Marylebone", repo.findById("1", new com.azure.cosmos.models.PartitionKey("Lovelace")).get().getCity());
        repo.deleteById("1", new com.azure.cosmos.models.PartitionKey("Lovelace"));
        assertFalse(repo.findById("1", new com.azure.cosmos.models.PartitionKey("Lovelace")).isPresent());
        assertEquals(7, repo.count());
        assertEquals(List.of("2", "3"), sortedIds(repo.findAllById(List.of("2", "3", "zz"))));
    }

    @Test
    void derivedQueries() {
        assertEquals(List.of("1", "6", "7"), sortedIds(repo.findByLastName("Lovelace")));
        assertEquals(List.of("3", "5", "8"), sortedIds(repo.findByAgeGreaterThan(80)));
        assertEquals(List.of("1", "2", "7"), sortedIds(repo.findByAgeBetween(36, 41)));
        assertEquals(List.of("1", "2", "6"), sortedIds(repo.findByFirstNameStartsWith("A")));
        assertEquals(List.of("1", "6"), sortedIds(repo.findByLastNameAndCity("Lovelace", "London")));
        assertEquals(List.of("3", "4", "7"), sortedIds(repo.findByCityIn(List.of("New York", "Austin", "Paris"))));
        assertEquals(3, repo.countByCity("London"));
        assertTrue(repo.existsByFirstName("Grace"));
        assertFalse(repo.existsByFirstName("Nobody"));
        assertEquals(List.of("1", "2"), sortedIds(repo.olderIn(30, "London")));
    }

    @Test
    void sorting() {
        List<Person> byAge = repo.findByLastNameOrderByAgeDesc("Lovelace");
        assertEquals(List.of(36, 36, 12), byAge.stream().map(Person::getAge).collect(Collectors.toList()));
        assertEquals("6", byAge.get(2).getId());
        assertEquals(List.of("6", "1", "7", "2", "4", "5", "3", "8"), ids(repo.findAll(Sort.by(Sort.Direction.ASC, "age", "id"))));
        assertEquals(List.of("2", "1", "6"), ids(repo.findByCity("London", Sort.by(Sort.Direction.DESC, "age"))));
        List<String> byName = ids(repo.findAll(Sort.by(Sort.Order.asc("lastName"), Sort.Order.asc("firstName"))));
        assertEquals(List.of("4", "3", "8", "5", "1", "6", "7", "2"), byName);
    }

    @Test
    void pagingWithContinuationTokens() {
        List<String> seen = new ArrayList<>();
        Pageable pageable = CosmosPageRequest.of(0, 3, null, Sort.by(Sort.Direction.ASC, "age", "id"));
        Page<Person> page = repo.findAll(pageable);
        int pages = 0;
        while (true) {
            pages++;
            assertTrue(page.getContent().size() <= 3);
            seen.addAll(ids(page.getContent()));
            if (!page.hasNext()) break;
            page = repo.findAll(page.nextPageable());
            assertTrue(pages < 10, "paging ends");
        }
        assertEquals(List.of("6", "1", "7", "2", "4", "5", "3", "8"), seen);
        assertEquals(3, pages);
        // a derived query, paged within one partition
        Page<Person> first = repo.findByLastName("Lovelace", CosmosPageRequest.of(0, 2, null, Sort.by("id")));
        assertEquals(List.of("1", "6"), ids(first.getContent()));
        assertTrue(first.hasNext());
        Page<Person> second = repo.findByLastName("Lovelace", first.nextPageable());
        assertEquals(List.of("7"), ids(second.getContent()));
        assertFalse(second.hasNext());
        // unsorted paging visits every item once
        List<String> all = new ArrayList<>();
        Page<Person> p = repo.findAll(PageRequest.of(0, 5));
        all.addAll(ids(p.getContent()));
        while (p.hasNext()) {
            p = repo.findAll(p.nextPageable());
            all.addAll(ids(p.getContent()));
        }
        assertEquals(List.of("1", "2", "3", "4", "5", "6", "7", "8"), all.stream().sorted().collect(Collectors.toList()));
    }

    @Test
    void auditingSetsCreatedAndModifiedDatesAndUsers() throws Exception {
        Person p = repo.findById("3", new com.azure.cosmos.models.PartitionKey("Hopper")).get();
        assertNotNull(p.getCreatedDate());
        assertNotNull(p.getLastModifiedDate());
        assertEquals("alice", p.getCreatedBy());
        assertEquals("alice", p.getLastModifiedBy());
        assertTrue(Math.abs(p.getCreatedDate().getEpochSecond() - System.currentTimeMillis() / 1000) < 120);
        Thread.sleep(20);
        SpringConfig.CURRENT_USER.set("bob");
        p.setCity("Arlington");
        Person updated = repo.save(p);
        assertEquals("alice", updated.getCreatedBy());
        assertEquals("bob", updated.getLastModifiedBy());
        assertEquals(p.getCreatedDate(), updated.getCreatedDate());
        assertTrue(updated.getLastModifiedDate().isAfter(updated.getCreatedDate()), updated.getLastModifiedDate() + " after " + updated.getCreatedDate());
        Person reread = repo.findById("3", new com.azure.cosmos.models.PartitionKey("Hopper")).get();
        assertEquals("bob", reread.getLastModifiedBy());
        assertEquals(updated.getLastModifiedDate(), reread.getLastModifiedDate());
    }

    @Test
    void optimisticLockingAStaleSaveFailsWith412() {
        Person a = repo.findById("4", new com.azure.cosmos.models.PartitionKey("Dijkstra")).get();
        Person b = repo.findById("4", new com.azure.cosmos.models.PartitionKey("Dijkstra")).get();
        assertNotNull(a.get_etag());
        assertEquals(a.get_etag(), b.get_etag());
        a.setCity("Eindhoven");
        Person saved = repo.save(a);
        assertNotEquals(b.get_etag(), saved.get_etag(), "a save changes the etag");
        b.setCity("Nuenen");
        DataAccessException e = assertThrows(DataAccessException.class, () -> repo.save(b));
        assertEquals(412, statusOf(e), String.valueOf(e));
        assertEquals("Eindhoven", repo.findById("4", new com.azure.cosmos.models.PartitionKey("Dijkstra")).get().getCity());
        // with the current etag the save goes through
        Person fresh = repo.findById("4", new com.azure.cosmos.models.PartitionKey("Dijkstra")).get();
        fresh.setCity("Nuenen");
        assertEquals("Nuenen", repo.save(fresh).getCity());
        // a new entity whose id exists is a conflict only when it has an etag; without one save upserts
        Person stale = new Person("4", "Edsger", "Dijkstra", 72, "Somewhere");
        stale.set_etag(a.get_etag());
        DataAccessException e2 = assertThrows(DataAccessException.class, () -> repo.save(stale));
        assertEquals(412, statusOf(e2));
    }

    private static int statusOf(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof CosmosException) return ((CosmosException) t).getStatusCode();
            if (t instanceof com.azure.spring.data.cosmos.exception.CosmosAccessException
                && ((com.azure.spring.data.cosmos.exception.CosmosAccessException) t).getCosmosException() != null) {
                return ((com.azure.spring.data.cosmos.exception.CosmosAccessException) t).getCosmosException().getStatusCode();
            }
        }
        return -1;
    }
}
