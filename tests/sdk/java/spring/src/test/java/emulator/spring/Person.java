package emulator.spring;

import com.azure.spring.data.cosmos.core.mapping.CompositeIndex;
import com.azure.spring.data.cosmos.core.mapping.CompositeIndexPath;
import com.azure.spring.data.cosmos.core.mapping.Container;
import com.azure.spring.data.cosmos.core.mapping.CosmosIndexingPolicy;
import com.azure.spring.data.cosmos.core.mapping.PartitionKey;
import java.time.Instant;
import org.springframework.data.annotation.CreatedBy;
import org.springframework.data.annotation.CreatedDate;
import org.springframework.data.annotation.Id;
import org.springframework.data.annotation.LastModifiedBy;
import org.springframework.data.annotation.LastModifiedDate;
import org.springframework.data.annotation.Version;

/** The entity: partition key lastName, optimistic locking on _etag, auditing fields. */
@Container(containerName = "people", autoCreateContainer = true)
// ORDER BY on two properties needs a composite index, on the service as here
@CosmosIndexingPolicy(compositeIndexes = {
    @CompositeIndex(paths = {@CompositeIndexPath(path = "/age"), @CompositeIndexPath(path = "/id")}),
    @CompositeIndex(paths = {@CompositeIndexPath(path = "/lastName"), @CompositeIndexPath(path = "/firstName")})})
public class Person {
    @Id
    private String id;
    @PartitionKey
    private String lastName;
    private String firstName;
    private int age;
    private String city;
    @Version
    private String _etag;
    @CreatedDate
    private Instant createdDate;
    @LastModifiedDate
    private Instant lastModifiedDate;
    @CreatedBy
    private String createdBy;
    @LastModifiedBy
    private String lastModifiedBy;

    public Person() {}

    public Person(String id, String firstName, String lastName, int age, String city) {
        this.id = id;
        this.firstName = firstName;
        this.lastName = lastName;
        this.age = age;
        this.city = city;
    }

    public String getId() { return id; }
    public void setId(String id) { this.id = id; }
    public String getLastName() { return lastName; }
    public void setLastName(String lastName) { this.lastName = lastName; }
    public String getFirstName() { return firstName; }
    public void setFirstName(String firstName) { this.firstName = firstName; }
    public int getAge() { return age; }
    public void setAge(int age) { this.age = age; }
    public String getCity() { return city; }
    public void setCity(String city) { this.city = city; }
    public String get_etag() { return _etag; }
    public void set_etag(String etag) { this._etag = etag; }
    public Instant getCreatedDate() { return createdDate; }
    public void setCreatedDate(Instant d) { this.createdDate = d; }
    public Instant getLastModifiedDate() { return lastModifiedDate; }
    public void setLastModifiedDate(Instant d) { this.lastModifiedDate = d; }
    public String getCreatedBy() { return createdBy; }
    public void setCreatedBy(String s) { this.createdBy = s; }
    public String getLastModifiedBy() { return lastModifiedBy; }
    public void setLastModifiedBy(String s) { this.lastModifiedBy = s; }

    @Override
    public String toString() {
        return id + "(" + firstName + " " + lastName + ", " + age + ", " + city + ")";
    }
}
