package emulator.spring;

import com.azure.spring.data.cosmos.repository.CosmosRepository;
import com.azure.spring.data.cosmos.repository.Query;
import java.util.List;
import org.springframework.data.domain.Page;
import org.springframework.data.domain.Pageable;
import org.springframework.data.domain.Sort;
import org.springframework.data.repository.query.Param;

/** Derived queries, paging and sorting, and an annotated query. */
public interface PersonRepository extends CosmosRepository<Person, String> {
    List<Person> findByLastName(String lastName);

    List<Person> findByAgeGreaterThan(int age);

    List<Person> findByAgeBetween(int from, int to);

    List<Person> findByFirstNameStartsWith(String prefix);

    List<Person> findByLastNameAndCity(String lastName, String city);

    List<Person> findByCityIn(List<String> cities);

    List<Person> findByLastNameOrderByAgeDesc(String lastName);

    List<Person> findByCity(String city, Sort sort);

    Page<Person> findByLastName(String lastName, Pageable pageable);

    long countByCity(String city);

    boolean existsByFirstName(String firstName);

    @Query("SELECT * FROM c WHERE c.age >= @min AND c.city = @city")
    List<Person> olderIn(@Param("min") int min, @Param("city") String city);
}
